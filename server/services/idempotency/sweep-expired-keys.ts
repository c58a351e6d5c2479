import { and, inArray, lte } from "drizzle-orm";
import { idempotencyKeys } from "@/db/schema";
import type { BaseContext } from "@/server/context";

/**
 * Idempotency records answer for 24 h; after that they are only weight. Deletes up to `limit`
 * expired records (oldest first, on `idempotency_keys_expires_idx`) and says how many went, so a
 * caller can repeat until none are left without holding one long transaction.
 */
export async function sweepExpiredIdempotencyKeys(ctx: BaseContext, limit = 1_000): Promise<number> {
  const now = ctx.clock.now();
  const expired = ctx.db
    .select({ key: idempotencyKeys.key })
    .from(idempotencyKeys)
    .where(lte(idempotencyKeys.expiresAt, now))
    .orderBy(idempotencyKeys.expiresAt)
    .limit(limit);
  const deleted = await ctx.db
    .delete(idempotencyKeys)
    // The key alone is not unique across merchants: the expiry test repeats, so only expired rows go.
    .where(and(inArray(idempotencyKeys.key, expired), lte(idempotencyKeys.expiresAt, now)))
    .returning({ key: idempotencyKeys.key });
  return deleted.length;
}
