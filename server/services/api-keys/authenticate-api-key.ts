import { eq } from "drizzle-orm";
import { apiKeys, merchants, type ApiKey, type Merchant } from "@/db/schema";
import { hashKey, parseKey } from "@/server/domain/api-keys";
import { ServiceError } from "@/server/domain/errors";
import type { BaseContext } from "@/server/context";
import { env } from "@/server/env";
import { TtlCache } from "@/server/ttl-cache";

export type Authenticated = { key: ApiKey; merchant: Merchant };

const LAST_USED_GRANULARITY_MS = 60_000;
const CACHE_MAX = 10_000;

/**
 * Valid keys are remembered for API_KEY_CACHE_TTL_MS (default 5 s): every /v1 request
 * authenticates, and on this hot path one round trip to the database is most of the cost.
 * Revocation clears the entry in this process at once; other instances see it within the TTL.
 * Unknown and revoked keys are never cached.
 */
const cache = new TtlCache<string, Authenticated>(CACHE_MAX);
/** Forgets so far in this process: a lookup that read its row before one is not remembered. */
let forgets = 0;

function remember(hash: string, value: Authenticated, now: number, forgetsBefore: number): void {
  const ttl = env().API_KEY_CACHE_TTL_MS;
  // A revocation that committed while this lookup ran may have read nothing to forget yet: the
  // row this lookup holds may be the key as it was before it. Forgets are rare; skipping is cheap.
  if (ttl > 0 && forgets === forgetsBefore) cache.set(hash, value, now + ttl);
}

/** Forget a key at once: its revocation must not wait for the TTL in this process. */
export function forgetApiKey(hash: string): void {
  forgets++;
  cache.delete(hash);
}

/**
 * Resolves a presented secret to its key and merchant. Missing, malformed, unknown and revoked
 * keys all answer the same 401 so that the answer reveals nothing about which keys exist.
 */
export async function authenticateApiKey(ctx: BaseContext, presented: string | null): Promise<Authenticated> {
  if (presented === null) {
    throw new ServiceError("api_key_invalid", "No API key provided. Send 'Authorization: Bearer sk_test_…'.");
  }
  if (presented === "") {
    throw new ServiceError("api_key_invalid", "The Authorization header must be 'Bearer <your API key>' (or HTTP Basic with the key as the user name).");
  }
  const parsed = parseKey(presented);
  if (!parsed) throw new ServiceError("api_key_invalid", "Invalid API key provided.");

  const hash = hashKey(presented);
  const now = ctx.clock.now().getTime();
  let row = cache.get(hash, now);
  if (!row) {
    const forgetsBefore = forgets;
    // Looked up by hash: the secret is never compared, so there is no timing signal to exploit.
    [row] = await ctx.db
      .select({ key: apiKeys, merchant: merchants })
      .from(apiKeys)
      .innerJoin(merchants, eq(merchants.id, apiKeys.merchantId))
      .where(eq(apiKeys.hash, hash));
    if (row && !row.key.revokedAt) remember(hash, row, now, forgetsBefore);
  }
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
  key.lastUsedAt = now;
  void ctx.db
    .update(apiKeys)
    .set({ lastUsedAt: now })
    .where(eq(apiKeys.id, key.id))
    .catch(() => {});
}
