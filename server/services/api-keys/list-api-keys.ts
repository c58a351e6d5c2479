import { and, eq, type SQL } from "drizzle-orm";
import { apiKeys, type ApiKey } from "@/db/schema";
import type { ServiceContext } from "@/server/context";
import { keyset, withOwnedCursor, type Page, type PageRequest } from "../pagination";

/** A key as staff may see it: everything but the hash, which never leaves the database. */
export type ApiKeySummary = Omit<ApiKey, "hash">;

/**
 * The merchant's keys in the current environment, newest first, revoked ones included (they are
 * history staff look for). Ids sort by creation time, so this is the order of
 * api_keys_merchant_idx (merchant_id, livemode, created_at); a merchant holds a handful of keys.
 */
export async function listApiKeys(ctx: ServiceContext, page: PageRequest): Promise<Page<ApiKeySummary>> {
  const q = keyset(apiKeys.id, page, and(eq(apiKeys.merchantId, ctx.merchant.id), eq(apiKeys.livemode, ctx.livemode)), [apiKeys.merchantId, apiKeys.livemode]);
  const own = { what: "API key", table: apiKeys, id: apiKeys.id, merchantId: apiKeys.merchantId, livemode: apiKeys.livemode };
  const read = (owned: SQL | undefined) =>
    ctx.db
      .select({
        id: apiKeys.id,
        merchantId: apiKeys.merchantId,
        livemode: apiKeys.livemode,
        kind: apiKeys.kind,
        scopes: apiKeys.scopes,
        name: apiKeys.name,
        displayPrefix: apiKeys.displayPrefix,
        createdAt: apiKeys.createdAt,
        revokedAt: apiKeys.revokedAt,
        lastUsedAt: apiKeys.lastUsedAt,
      })
      .from(apiKeys)
      .where(and(q.where, owned))
      .orderBy(...q.orderBy)
      .limit(q.limit);
  const rows = await withOwnedCursor(ctx, page, own, read);
  return q.finish(rows);
}
