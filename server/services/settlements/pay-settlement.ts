import { and, asc, eq, inArray, lte, type SQL } from "drizzle-orm";
import type { Db } from "@/db/client";
import { literalIn } from "@/db/literal";
import { afterCommit, inTransaction } from "@/db/transaction";
import { payments, refunds, settlementLines, settlements, type Settlement, type SettlementLine } from "@/db/schema";
import type { BaseContext, ServiceContext } from "@/server/context";
import { ServiceError } from "@/server/domain/errors";
import { toSettlementResource } from "@/server/schemas/settlements";
import { signalJobs } from "@/server/services/job-signals";
import { recordEvents } from "../events/record-event";
import { getSettlement } from "./get-settlement";

/**
 * Pending → paid for the batches `which` selects, each with its `settlement.paid` event: a
 * compare-and-set on `pending` inside the caller's transaction (begun by inTransaction), so a
 * batch is paid and announced once however many workers or operators try at the same moment. The
 * workers hear of the events once they are committed.
 */
async function markPaid(tx: Db, now: Date, which: SQL): Promise<Settlement[]> {
  const rows = await tx
    .update(settlements)
    .set({ status: "paid", paidAt: now, updatedAt: now })
    .where(and(eq(settlements.status, "pending"), which))
    .returning();
  const recorded = await recordEvents(
    tx,
    rows.map((s) => ({
      merchantId: s.merchantId,
      livemode: s.livemode,
      type: "settlement.paid" as const,
      objectId: s.id,
      object: toSettlementResource(s),
      previousAttributes: { status: "pending" },
      at: now,
    })),
  );
  if (recorded.length) afterCommit(tx, () => signalJobs({ type: "events.recorded", eventIds: recorded.map((e) => e.id) }));
  return rows;
}

/**
 * Test mode's payouts: batches whose `pay_after` has come are paid (SKIP LOCKED, so workers on
 * several instances share them). `ids` limits it to given batches (the Inngest function's own).
 */
export async function payDueSettlements(ctx: BaseContext, opts: { limit: number; merchantId?: string; ids?: string[] }): Promise<Settlement[]> {
  const dueAt = (now: Date) =>
    and(
      literalIn(settlements.status, "pending"),
      lte(settlements.payAfter, now),
      opts.merchantId ? eq(settlements.merchantId, opts.merchantId) : undefined,
      opts.ids ? inArray(settlements.id, opts.ids) : undefined,
    );
  // The runner asks on every pass: one indexed read when nothing is due, a transaction only when something is.
  const [any] = await ctx.db.select({ id: settlements.id }).from(settlements).where(dueAt(ctx.clock.now())).limit(1);
  if (!any) return [];
  return inTransaction(ctx.db, async (tx) => {
    const now = ctx.clock.now();
    const due = await tx
      .select({ id: settlements.id })
      .from(settlements)
      .where(dueAt(now))
      .orderBy(asc(settlements.payAfter))
      .limit(opts.limit)
      .for("update", { skipLocked: true });
    if (due.length === 0) return [];
    return markPaid(tx, now, inArray(settlements.id, due.map((d) => d.id)));
  });
}

/** An operator confirms that a (live) batch reached the merchant's bank. Confirming twice is harmless. */
export async function confirmSettlementPayout(ctx: ServiceContext, id: string): Promise<Settlement> {
  const current = await getSettlement(ctx, id);
  if (current.status === "paid") return current;
  if (current.status === "failed") {
    throw new ServiceError("parameter_invalid", `Settlement ${id} failed; its payments and refunds go into the next batch instead.`, "id");
  }
  const [paid] = await inTransaction(ctx.db, (tx) => markPaid(tx, ctx.clock.now(), eq(settlements.id, id)));
  // Lost the race to another confirmation (or a failure): the batch as it now stands.
  return paid ?? getSettlement(ctx, id);
}

/**
 * An operator records that a payout bounced: before it was confirmed, or after (a bank may return
 * a transfer days after it was sent; its `paid_at` is kept). The batch stays as history; its
 * payments and refunds are released in the same transaction, so the next run settles them again
 * and none is lost. A batch fails once: a failed one's items may be in another batch by now.
 */
export async function failSettlementPayout(ctx: ServiceContext, id: string, message: string): Promise<Settlement> {
  await getSettlement(ctx, id);
  const failed = await ctx.db.transaction(async (tx) => {
    const now = ctx.clock.now();
    const [row] = await tx
      .update(settlements)
      .set({ status: "failed", failedAt: now, failureMessage: message, updatedAt: now })
      .where(and(eq(settlements.id, id), inArray(settlements.status, ["pending", "paid"])))
      .returning();
    if (!row) return null;
    // Found through the batch's own lines (its primary key's prefix): nothing indexes the items
    // of a batch by settlement_id, so a match on it alone read every payment and refund there is.
    const items = (kind: SettlementLine["kind"]) =>
      tx.select({ id: settlementLines.objectId }).from(settlementLines).where(and(eq(settlementLines.settlementId, id), eq(settlementLines.kind, kind)));
    await tx.update(payments).set({ settlementId: null }).where(and(inArray(payments.id, items("payment")), eq(payments.settlementId, id)));
    await tx.update(refunds).set({ settlementId: null }).where(and(inArray(refunds.id, items("refund")), eq(refunds.settlementId, id)));
    return row;
  });
  if (failed) return failed;
  // Only a failed batch is neither pending nor paid.
  throw new ServiceError("parameter_invalid", `Settlement ${id} has failed already; its payments and refunds went into the next batch.`, "id");
}
