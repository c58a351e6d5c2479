import { and, eq, sql } from "drizzle-orm";
import { payments, refunds, type EventRow, type Refund } from "@/db/schema";
import { resourceMissing } from "@/server/domain/errors";
import { REFUND_EVENT } from "@/server/domain/events";
import type { RefundFailureCode } from "@/server/domain/refunds";
import type { BaseContext } from "@/server/context";
import { toRefundResource } from "@/server/schemas/refunds";
import { signalJobs } from "@/server/services/job-signals";
import { recordEvents } from "../events/record-event";

export type RefundTransition =
  | { refundId: string; to: "succeeded" }
  | { refundId: string; to: "failed"; failure: { code: RefundFailureCode; message: string } };

export type RefundTransitionResult = { refund: Refund; changed: boolean; event: EventRow | null };

/**
 * The one way a refund settles: a compare-and-set on `pending`, its event and outbox row and, for
 * a success, the payment's `amount_refunded`, all in one transaction. Losing the race (a second
 * worker or a late answer got there first) is normal: `changed: false`, no event.
 */
export async function transitionRefund(ctx: BaseContext, input: RefundTransition): Promise<RefundTransitionResult> {
  const result = await ctx.db.transaction(async (tx): Promise<RefundTransitionResult> => {
    const now = ctx.clock.now();
    // The compare-and-set is the lock: a second worker's UPDATE waits on the row, then finds it settled.
    const [updated] = await tx
      .update(refunds)
      .set({
        status: input.to,
        ...(input.to === "succeeded"
          ? { succeededAt: now }
          : { failedAt: now, failureCode: input.failure.code, failureMessage: input.failure.message }),
        nextCheckAt: null,
        updatedAt: now,
      })
      .where(and(eq(refunds.id, input.refundId), eq(refunds.status, "pending")))
      .returning();
    if (!updated) {
      const [current] = await tx.select().from(refunds).where(eq(refunds.id, input.refundId));
      if (!current) throw resourceMissing("refund", input.refundId);
      return { refund: current, changed: false, event: null };
    }
    if (updated.status === "succeeded") {
      // The check constraint (0..amount) backs the sum taken under the payment's lock at creation.
      await tx
        .update(payments)
        .set({ amountRefunded: sql`${payments.amountRefunded} + ${updated.amount}`, updatedAt: now })
        .where(eq(payments.id, updated.paymentId));
    }
    const [event] = await recordEvents(tx, [
      {
        merchantId: updated.merchantId,
        livemode: updated.livemode,
        type: REFUND_EVENT[input.to],
        objectId: updated.id,
        object: toRefundResource(updated),
        previousAttributes: { status: "pending" },
        at: now,
      },
    ]);
    return { refund: updated, changed: true, event: event ?? null };
  });
  if (result.event) signalJobs({ type: "events.recorded", eventIds: [result.event.id] });
  return result;
}
