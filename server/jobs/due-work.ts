import { and, asc, eq, inArray, isNull, lte, min, or } from "drizzle-orm";
import { payments } from "@/db/schema";
import type { Db } from "@/db/client";

export const LEASE_MS = 30_000;

/**
 * Claims up to `limit` due payments of one kind for this worker: due rows are locked with SKIP
 * LOCKED (another instance's claim is skipped, not waited for) and leased by pushing
 * `next_check_at` forward. A worker that dies mid-way loses nothing: the lease runs out and the
 * work is due again. Used by the local runner and the Inngest sweeper alike. `merchantId`
 * confines a worker to one merchant (tests share one database across merchants).
 */
export async function claimDue(
  db: Db,
  kind: "expiry" | "reconcile",
  now: Date,
  limit: number,
  merchantId?: string,
): Promise<string[]> {
  const due =
    kind === "expiry"
      ? and(eq(payments.status, "awaiting_customer"), lte(payments.expiresAt, now), or(isNull(payments.nextCheckAt), lte(payments.nextCheckAt, now)))
      : and(inArray(payments.status, ["unknown", "unresolved"]), lte(payments.nextCheckAt, now));
  const candidates = db
    .select({ id: payments.id })
    .from(payments)
    .where(merchantId ? and(due, eq(payments.merchantId, merchantId)) : due)
    .orderBy(asc(kind === "expiry" ? payments.expiresAt : payments.nextCheckAt))
    .limit(limit)
    .for("update", { skipLocked: true });
  const claimed = await db
    .update(payments)
    .set({ nextCheckAt: new Date(now.getTime() + LEASE_MS) })
    .where(inArray(payments.id, candidates))
    .returning({ id: payments.id });
  return claimed.map((r) => r.id);
}

/** When the earliest due work falls, so a runner can sleep exactly until then. */
export async function nextDueAt(db: Db): Promise<Date | null> {
  const [expiry] = await db.select({ at: min(payments.expiresAt) }).from(payments).where(eq(payments.status, "awaiting_customer"));
  const [check] = await db
    .select({ at: min(payments.nextCheckAt) })
    .from(payments)
    .where(inArray(payments.status, ["unknown", "unresolved"]));
  const times = [expiry?.at, check?.at].filter((d): d is Date => d instanceof Date);
  return times.length ? new Date(Math.min(...times.map((d) => d.getTime()))) : null;
}
