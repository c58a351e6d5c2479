import { eq } from "drizzle-orm";
import { payments, refunds, type Refund } from "@/db/schema";
import { log } from "@/server/log";
import { ProviderUnavailableError, type RefundOutcome } from "@/server/providers/port";
import { scheduleNextCheck, submitRefund, type RefundContext, type RefundedPayment } from "./submit-refund";
import { transitionRefund } from "./transition-refund";

const STATUS_QUERY_TIMEOUT_MS = 5_000;

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

  const outcome = await askProvider(ctx, refund, payment);
  switch (outcome.kind) {
    case "succeeded":
      return (await transitionRefund(ctx, { refundId, to: "succeeded" })).refund;
    case "failed":
      return (await transitionRefund(ctx, { refundId, to: "failed", failure: { code: outcome.failureCode, message: outcome.message } })).refund;
    case "pending":
    case "unknown":
      return scheduleNextCheck(ctx, refund);
  }
}

/** A refund status query that never throws for the provider's own failures: those are `unknown`. */
async function askProvider(ctx: RefundContext, refund: Refund, payment: RefundedPayment): Promise<RefundOutcome | { kind: "unknown" }> {
  const provider = ctx.providers.byName(refund.provider);
  if (!provider) {
    log.error("refund names no configured provider", { refund: refund.id, provider: refund.provider });
    return { kind: "unknown" };
  }
  try {
    return await provider.queryRefund(
      { idempotencyKey: refund.id, providerReference: refund.providerReference, msisdn: payment.customerMsisdn },
      AbortSignal.timeout(STATUS_QUERY_TIMEOUT_MS),
    );
  } catch (e) {
    if (!(e instanceof ProviderUnavailableError)) throw e;
    log.warn("provider refund query failed", { refund: refund.id, error: e.message });
    return { kind: "unknown" };
  }
}
