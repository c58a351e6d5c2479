import { eq } from "drizzle-orm";
import { apiKeys, merchants, type ApiKey, type Merchant } from "@/db/schema";
import { hashKey, parseKey } from "@/server/domain/api-keys";
import { ServiceError } from "@/server/domain/errors";
import type { BaseContext } from "@/server/context";

export type Authenticated = { key: ApiKey; merchant: Merchant };

const LAST_USED_GRANULARITY_MS = 60_000;

/**
 * Resolves a presented secret to its key and merchant. Missing, malformed, unknown and revoked
 * keys all answer the same 401 so that the answer reveals nothing about which keys exist.
 */
export async function authenticateApiKey(ctx: BaseContext, presented: string | null): Promise<Authenticated> {
  if (!presented) {
    throw new ServiceError("api_key_invalid", "No API key provided. Send 'Authorization: Bearer sk_test_…'.");
  }
  const parsed = parseKey(presented);
  if (!parsed) throw new ServiceError("api_key_invalid", "Invalid API key provided.");

  // Looked up by hash: the secret is never compared, so there is no timing signal to exploit.
  const [row] = await ctx.db
    .select({ key: apiKeys, merchant: merchants })
    .from(apiKeys)
    .innerJoin(merchants, eq(merchants.id, apiKeys.merchantId))
    .where(eq(apiKeys.hash, hashKey(presented)));
  if (!row || row.key.revokedAt) throw new ServiceError("api_key_invalid", "Invalid API key provided.");

  touchLastUsed(ctx, row.key);
  return row;
}

/**
 * `last_used_at` to the minute, written off the request path: a lost update only makes the
 * figure a minute staler, and the hot path keeps its one query.
 */
function touchLastUsed(ctx: BaseContext, key: ApiKey): void {
  const now = ctx.clock.now();
  if (key.lastUsedAt && now.getTime() - key.lastUsedAt.getTime() < LAST_USED_GRANULARITY_MS) return;
  void ctx.db
    .update(apiKeys)
    .set({ lastUsedAt: now })
    .where(eq(apiKeys.id, key.id))
    .catch(() => {});
}
