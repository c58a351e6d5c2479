import { and, eq, isNull, lte, or, sql } from "drizzle-orm";
import { refunds, type Payment, type Refund } from "@/db/schema";
import { nextRefundCheckAt, refundSubmitLeaseEnds } from "@/server/domain/refund-schedule";
import type { BaseContext } from "@/server/context";
import { env } from "@/server/env";
import type { ProviderRegistry } from "@/server/providers/port";
import { callProvider, STATUS_QUERY_TIMEOUT_MS } from "../providers/call-provider";
import { transitionRefund } from "./transition-refund";

export type RefundContext = BaseContext & { providers: ProviderRegistry };
/** What a submission needs of the refunded payment. */
export type RefundedPayment = Pick<Payment, "id" | "customerMsisdn" | "providerReference">;

/**
 * Hands a pending refund to the provider, with our refund id as its idempotency key: a second
 * submission (a retried request, the due-work verb after a crash or an outage) is the same refund
 * to the provider, never a second one. Accepted → `submitted_at`, the reference and the first
 * status check; rejected → failed (after asking the provider, when an earlier submission may have
 * reached it); unreachable → still unsubmitted, submitted again later.
 *
 * Each submission is claimed first (claimSubmission): one at a time, whoever sends it (the
 * request, a retry with its key, a worker), and counted before it is sent, so a crash after the
 * provider took it is known to the next one.
 */
export async function submitRefund(ctx: RefundContext, unclaimed: Refund, payment: RefundedPayment): Promise<Refund> {
  const refund = await claimSubmission(ctx, unclaimed);
  // Another request or worker is submitting it, or it was submitted or settled meanwhile.
  if (!refund) return current(ctx, unclaimed.id);
  const result = await callProvider(
    ctx.providers.byName(refund.provider),
    (provider, signal) =>
      provider.refund(
        {
          idempotencyKey: refund.id,
          paymentId: payment.id,
          paymentProviderReference: payment.providerReference,
          msisdn: payment.customerMsisdn,
          amount: refund.amount,
          currency: refund.currency,
        },
        signal,
      ),
    { timeoutMs: env().PROVIDER_PUSH_TIMEOUT_MS, what: "refund", about: { refund: refund.id } },
  );

  if (result === "unavailable") return scheduleNextCheck(ctx, refund);
  if (result.outcome === "rejected") {
    // An earlier submission (one that went unanswered, or whose request died before it recorded
    // the answer) may have reached the provider, and a provider that refuses the copy would have
    // us free the amount for a second refund. Its own word on the refund decides: only a refund
    // it does not have fails here.
    if (refund.submitAttempts > 1) {
      const asked = await queryProviderRefund(ctx, refund, payment);
      if (asked === "unavailable") return scheduleNextCheck(ctx, refund);
      if (asked.kind === "succeeded") return (await transitionRefund(ctx, { refundId: refund.id, to: "succeeded" })).refund;
      if (asked.kind === "pending") return markSubmitted(ctx, refund, null);
      // failed, or not_found (it never took one): nothing went out.
    }
    return (await transitionRefund(ctx, { refundId: refund.id, to: "failed", failure: { code: result.failureCode, message: result.message } })).refund;
  }
  return markSubmitted(ctx, refund, result.providerReference);
}

/**
 * The right to send the next submission, for as long as any provider call takes (the submit
 * lease): no other submission of the refund starts meanwhile, whoever would send it (a retry with
 * the same key, a second worker, a job run twice), since the provider would refuse it as a copy.
 * A crash frees it when the lease ends; the refund's next check waits for that too.
 */
async function claimSubmission(ctx: BaseContext, refund: Refund): Promise<Refund | null> {
  const now = ctx.clock.now();
  const until = refundSubmitLeaseEnds(now);
  const [claimed] = await ctx.db
    .update(refunds)
    .set({ submitAttempts: sql`${refunds.submitAttempts} + 1`, submittingUntil: until, nextCheckAt: until, updatedAt: now })
    .where(
      and(
        eq(refunds.id, refund.id),
        eq(refunds.status, "pending"),
        isNull(refunds.submittedAt),
        or(isNull(refunds.submittingUntil), lte(refunds.submittingUntil, now)),
      ),
    )
    .returning();
  return claimed ?? null;
}

/** Where the provider says a refund it was sent stands (its idempotency key is our refund id). */
export function queryProviderRefund(ctx: RefundContext, refund: Refund, payment: RefundedPayment) {
  return callProvider(
    ctx.providers.byName(refund.provider),
    (provider, signal) => provider.queryRefund({ idempotencyKey: refund.id, providerReference: refund.providerReference, msisdn: payment.customerMsisdn }, signal),
    { timeoutMs: STATUS_QUERY_TIMEOUT_MS, what: "refund query", about: { refund: refund.id } },
  );
}

/** The provider has the refund: submitted now, first status check on the schedule. */
async function markSubmitted(ctx: RefundContext, refund: Refund, providerReference: string | null): Promise<Refund> {
  const now = ctx.clock.now();
  // Only the first accepted submission records itself; another one racing it finds the row done.
  const [submitted] = await ctx.db
    .update(refunds)
    .set({ submittedAt: now, providerReference, checkAttempts: 0, nextCheckAt: nextRefundCheckAt(0, now), updatedAt: now })
    .where(and(eq(refunds.id, refund.id), eq(refunds.status, "pending"), isNull(refunds.submittedAt)))
    .returning();
  return submitted ?? current(ctx, refund.id);
}

/** The provider gave no definitive answer: ask (or submit) again on the backoff schedule. */
export async function scheduleNextCheck(ctx: BaseContext, refund: Refund): Promise<Refund> {
  const now = ctx.clock.now();
  const attempts = refund.checkAttempts + 1;
  const [updated] = await ctx.db
    .update(refunds)
    // An unanswered submission's claim ends with it: the next one may start when this check falls due.
    .set({ checkAttempts: attempts, nextCheckAt: nextRefundCheckAt(attempts, now), submittingUntil: null, updatedAt: now })
    .where(and(eq(refunds.id, refund.id), eq(refunds.status, "pending")))
    .returning();
  return updated ?? current(ctx, refund.id);
}

async function current(ctx: BaseContext, refundId: string): Promise<Refund> {
  const [row] = await ctx.db.select().from(refunds).where(eq(refunds.id, refundId));
  return row!;
}
