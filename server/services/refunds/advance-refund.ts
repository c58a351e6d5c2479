import { eq } from "drizzle-orm";
import { payments, refunds, type Refund } from "@/db/schema";
import { queryProviderRefund, scheduleNextCheck, submitRefund, type RefundContext } from "./submit-refund";
import { log } from "@/server/log";
import { transitionRefund } from "./transition-refund";

/**
 * The due work of a pending refund, safe to run twice at once or late: submit it if it never
 * reached the provider, otherwise ask the provider and settle it on a definitive answer (the
 * compare-and-set in transitionRefund makes the event happen once), or ask again later.
 */
export async function advanceRefund(ctx: RefundContext, refundId: string): Promise<Refund | null> {
  const [row] = await ctx.db
    .select({ refund: refunds, payment: { id: payments.id, customerMsisdn: payments.customerMsisdn, providerReference: payments.providerReference } })
    .from(refunds)
    .innerJoin(payments, eq(payments.id, refunds.paymentId))
    .where(eq(refunds.id, refundId));
  if (!row || row.refund.status !== "pending") return row?.refund ?? null;
  const { refund, payment } = row;
  if (!refund.submittedAt) return submitRefund(ctx, refund, payment);

  const outcome = await queryProviderRefund(ctx, refund, payment);
  if (outcome === "unavailable") return scheduleNextCheck(ctx, refund);
  switch (outcome.kind) {
    case "succeeded":
      return (await transitionRefund(ctx, { refundId, to: "succeeded" })).refund;
    case "failed":
      return (await transitionRefund(ctx, { refundId, to: "failed", failure: { code: outcome.failureCode, message: outcome.message } })).refund;
    case "pending":
      return scheduleNextCheck(ctx, refund);
    case "not_found":
      // It took this refund (or said it had it) and now has no record of it. Failing it would free
      // the amount for a second refund while the first may still pay out: it stays pending, asked
      // about on the schedule, and the log tells an operator to take it up with the provider.
      log.error("the provider has no record of a refund it took; it stays pending until the provider answers", { refund: refund.id, provider: refund.provider });
      return scheduleNextCheck(ctx, refund);
  }
}
