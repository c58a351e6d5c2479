import { and, asc, eq, inArray, isNull, lte, or, sql } from "drizzle-orm";
import { rowsOf } from "@/db/rows";
import { outbox, payments, refunds, webhookDeliveries } from "@/db/schema";
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

/**
 * When the earliest due work falls (one round trip, each part on its partial index): payments,
 * pending refunds and unrelayed events, and webhook deliveries apart, since a runner whose
 * delivery slots are full takes more as attempts finish rather than by waking.
 */
export async function nextDueAt(db: Db): Promise<{ work: Date | null; deliveries: Date | null }> {
  const [row] = rowsOf<{ work: Date | string | null; deliveries: Date | string | null }>(
    await db.execute(sql`select least(
      (select min(${payments.expiresAt}) from ${payments} where ${payments.status} = 'awaiting_customer'),
      (select min(${payments.nextCheckAt}) from ${payments} where ${payments.status} in ('unknown', 'unresolved')),
      (select min(${refunds.nextCheckAt}) from ${refunds} where ${refunds.status} = 'pending'),
      (select min(${outbox.createdAt}) from ${outbox})
    ) as work,
    (select min(${webhookDeliveries.nextAttemptAt}) from ${webhookDeliveries} where ${webhookDeliveries.status} = 'pending') as deliveries`),
  );
  const at = (v: Date | string | null | undefined) => (v ? new Date(v) : null);
  return { work: at(row?.work), deliveries: at(row?.deliveries) };
}

/**
 * Claims pending refunds due at `now` for this worker (SKIP LOCKED, leased by pushing
 * `next_check_at` LEASE_MS ahead, which outlasts a submission's timeout). `overdueMs` leaves
 * recently due refunds to the Inngest function that scheduled them, as for deliveries.
 */
export async function claimDueRefunds(db: Db, now: Date, limit: number, opts: { merchantId?: string; overdueMs?: number } = {}): Promise<string[]> {
  const due = and(eq(refunds.status, "pending"), lte(refunds.nextCheckAt, new Date(now.getTime() - (opts.overdueMs ?? 0))));
  const candidates = db
    .select({ id: refunds.id })
    .from(refunds)
    .where(opts.merchantId ? and(due, eq(refunds.merchantId, opts.merchantId)) : due)
    .orderBy(asc(refunds.nextCheckAt))
    .limit(limit)
    .for("update", { skipLocked: true });
  const claimed = await db
    .update(refunds)
    .set({ nextCheckAt: new Date(now.getTime() + LEASE_MS) })
    .where(inArray(refunds.id, candidates))
    .returning({ id: refunds.id });
  return claimed.map((r) => r.id);
}

/** A delivery attempt may take 10 s; the lease covers it with room to record the result. */
export const DELIVERY_LEASE_MS = 60_000;

/**
 * Claims pending deliveries due at `now` (SKIP LOCKED, leased by pushing `next_attempt_at` past the
 * attempt). `overdueMs` leaves recently due work to whoever scheduled it: the Inngest sweeper only
 * takes deliveries whose own function should have run minutes ago.
 */
export async function claimDueDeliveries(
  db: Db,
  now: Date,
  limit: number,
  opts: { merchantId?: string; overdueMs?: number } = {},
): Promise<string[]> {
  const dueBy = new Date(now.getTime() - (opts.overdueMs ?? 0));
  const due = and(eq(webhookDeliveries.status, "pending"), lte(webhookDeliveries.nextAttemptAt, dueBy));
  const candidates = db
    .select({ id: webhookDeliveries.id })
    .from(webhookDeliveries)
    .where(opts.merchantId ? and(due, eq(webhookDeliveries.merchantId, opts.merchantId)) : due)
    .orderBy(asc(webhookDeliveries.nextAttemptAt))
    .limit(limit)
    .for("update", { skipLocked: true });
  const claimed = await db
    .update(webhookDeliveries)
    .set({ nextAttemptAt: new Date(now.getTime() + DELIVERY_LEASE_MS) })
    .where(inArray(webhookDeliveries.id, candidates))
    .returning({ id: webhookDeliveries.id });
  return claimed.map((r) => r.id);
}

/** Claims one delivery if it is due (the Inngest function's step); false when not due or leased. */
export async function claimDelivery(db: Db, id: string, now: Date): Promise<boolean> {
  const claimed = await db
    .update(webhookDeliveries)
    .set({ nextAttemptAt: new Date(now.getTime() + DELIVERY_LEASE_MS) })
    .where(and(eq(webhookDeliveries.id, id), eq(webhookDeliveries.status, "pending"), lte(webhookDeliveries.nextAttemptAt, now)))
    .returning({ id: webhookDeliveries.id });
  return claimed.length === 1;
}
