import { and, eq, inArray } from "drizzle-orm";
import { payments, type EventRow, type Payment } from "@/db/schema";
import { PAYMENT_EVENT } from "@/server/domain/events";
import { TRANSITIONS, type FailureCode, type PaymentStatus } from "@/server/domain/payment-status";
import { resourceMissing } from "@/server/domain/errors";
import type { BaseContext } from "@/server/context";
import { toPaymentResource } from "@/server/schemas/payments";
import { signalJobs } from "@/server/services/job-signals";
import { recordEvent } from "../events/record-event";
import { firstCheckAt } from "@/server/domain/reconcile-schedule";

export type TransitionInput = {
  paymentId: string;
  to: Exclude<PaymentStatus, "awaiting_customer">;
  /** Required with `failed`: only a provider's definitive decline (or staff) fails a payment. */
  failure?: { code: FailureCode; message: string };
  providerReference?: string | null;
  /** Staff's reason when resolving an unresolved payment by hand. */
  resolutionReason?: string;
  /** Set when the push itself produced the outcome. */
  promptSentAt?: Date;
};

export type TransitionResult = { payment: Payment; changed: boolean; event: EventRow | null };

/** The timestamp column each state stamps on arrival. */
const STAMP = {
  unknown: "unknownSince",
  succeeded: "succeededAt",
  failed: "failedAt",
  expired: "expiredAt",
  unresolved: "unresolvedAt",
} as const satisfies Record<TransitionInput["to"], keyof Payment>;

/**
 * The one way a payment changes state: a compare-and-set on the allowed `from` states, its event
 * and outbox row, all in one transaction. Losing the race (someone else moved it first, or it is
 * terminal) is a normal outcome: `changed: false` with the current row, and no event.
 */
export async function transitionPayment(ctx: BaseContext, input: TransitionInput): Promise<TransitionResult> {
  if (input.to === "failed" && !input.failure) throw new Error("a payment fails only with the provider's decline reason");
  const from = TRANSITIONS[input.to] as readonly PaymentStatus[];
  const result = await ctx.db.transaction(async (tx): Promise<TransitionResult> => {
    const [current] = await tx.select().from(payments).where(eq(payments.id, input.paymentId)).for("update");
    if (!current) throw resourceMissing("payment", input.paymentId);
    if (!from.includes(current.status)) return { payment: current, changed: false, event: null };

    const now = ctx.clock.now();
    const [updated] = await tx
      .update(payments)
      .set({
        status: input.to,
        [STAMP[input.to]]: now,
        updatedAt: now,
        ...(input.failure ? { failureCode: input.failure.code, failureMessage: input.failure.message } : {}),
        ...(input.providerReference ? { providerReference: input.providerReference } : {}),
        ...(input.resolutionReason ? { resolutionReason: input.resolutionReason } : {}),
        ...(input.promptSentAt ? { promptSentAt: input.promptSentAt } : {}),
        // Unknown and unresolved payments keep being reconciled; every other state is done asking.
        nextCheckAt: input.to === "unknown" || input.to === "unresolved" ? firstCheckAt(input.to, now) : null,
        ...(input.to === "unknown" ? { checkAttempts: 0 } : {}),
      })
      .where(and(eq(payments.id, input.paymentId), inArray(payments.status, from)))
      .returning();
    if (!updated) return { payment: current, changed: false, event: null };

    const type = PAYMENT_EVENT[input.to];
    const event = type
      ? await recordEvent(tx, {
          merchantId: updated.merchantId,
          livemode: updated.livemode,
          type,
          objectId: updated.id,
          object: toPaymentResource(updated),
          previousAttributes: { status: current.status },
          at: now,
        })
      : null;
    return { payment: updated, changed: true, event };
  });
  if (result.event) signalJobs({ type: "events.recorded", eventIds: [result.event.id] });
  if (result.changed && result.payment.status === "unknown") {
    signalJobs({ type: "payment.unknown", paymentId: result.payment.id, unknownSince: result.payment.unknownSince! });
  }
  return result;
}
