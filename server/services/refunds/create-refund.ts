import { and, eq, gt } from "drizzle-orm";
import { payments, refunds, type Payment, type Refund } from "@/db/schema";
import { idempotencyKeyReused, invalidParam, resourceMissing, ServiceError } from "@/server/domain/errors";
import { IDEMPOTENCY_TTL_MS } from "@/server/domain/idempotency";
import { newId } from "@/server/domain/ids";
import { METADATA_MAX_KEYS, refundMetadata, sameMetadata } from "@/server/domain/metadata";
import { owned } from "@/server/domain/tenancy";
import { refundSubmitLeaseEnds } from "@/server/domain/refund-schedule";
import type { RefundReason } from "@/server/domain/refunds";
import type { ServiceContext } from "@/server/context";
import { signalJobs } from "@/server/services/job-signals";
import { refundableAmount } from "./refundable-amount";
import { submitRefund } from "./submit-refund";

export type CreateRefundInput = {
  paymentId: string;
  /** Defaults to all that remains refundable. */
  amount?: number;
  reason?: RefundReason;
  metadata?: Record<string, string>;
  /** The caller's Idempotency-Key: a retry that takes over a crashed request finds its refund. */
  idempotencyKey?: string;
};

/**
 * Refunds all or part of a succeeded payment. The refund carries the payment's metadata, with its
 * own on top (refundMetadata), so its webhooks name the merchant's order as the payment's do.
 *
 * The pending row is committed first, in a transaction that locks the payment row, sums what its
 * pending and succeeded refunds hold and inserts: concurrent refunds of one payment queue on that
 * lock, so together they can never exceed its amount. Then, within the request, the refund goes
 * to the provider with our refund id as its idempotency key. A crash before or during that
 * leaves an unsubmitted pending row whose lease (`next_check_at`) runs out, and the due-work verb
 * submits it; a retry with the same Idempotency-Key finds the same row and submits it again,
 * which the provider dedupes.
 */
export async function createRefund(ctx: ServiceContext, input: CreateRefundInput): Promise<Refund> {
  const { refund, payment } = await insertRefund(ctx, input);
  const result = refund.status === "pending" && !refund.submittedAt ? await submitRefund(ctx, refund, payment) : refund;
  if (result.status === "pending" && result.nextCheckAt) signalJobs({ type: "refund.created", refundId: result.id, dueAt: result.nextCheckAt });
  return result;
}

async function insertRefund(ctx: ServiceContext, input: CreateRefundInput): Promise<{ refund: Refund; payment: Payment }> {
  return ctx.db.transaction(async (tx) => {
    const now = ctx.clock.now();
    // By id alone, the owner checked here (see owned()); another merchant's row is only locked
    // until this transaction ends, at once.
    const [found] = await tx.select().from(payments).where(eq(payments.id, input.paymentId)).for("update");
    const payment = owned(found, ctx);
    if (!payment) throw resourceMissing("payment", input.paymentId, "payment");

    if (input.idempotencyKey) {
      // Same key, same payment: the refund a request with this key made. The idempotency layer
      // refuses another body while it holds the key's record, but a request that answered 5xx
      // after its refund committed leaves none, so a changed body is refused here.
      const [mine] = await tx
        .select()
        .from(refunds)
        .where(
          and(
            eq(refunds.paymentId, payment.id),
            eq(refunds.idempotencyKey, input.idempotencyKey),
            gt(refunds.createdAt, new Date(now.getTime() - IDEMPOTENCY_TTL_MS)),
          ),
        );
      if (mine) {
        if (!sameRefundRequest(mine, input, payment)) throw idempotencyKeyReused();
        return { refund: mine, payment };
      }
    }

    if (payment.status !== "succeeded") {
      throw new ServiceError("parameter_invalid", `Payment ${payment.id} is ${payment.status}; only a succeeded payment can be refunded.`, "payment");
    }
    const remaining = await refundableAmount(tx, payment);
    if (remaining === 0) {
      throw new ServiceError(
        "refund_amount_invalid",
        `Payment ${payment.id} has nothing left to refund: all ${payment.amount} of it is refunded or being refunded.`,
        "amount",
      );
    }
    const amount = input.amount ?? remaining;
    if (amount > remaining) {
      throw new ServiceError(
        "refund_amount_invalid",
        `Refund amount ${amount} exceeds what remains refundable on payment ${payment.id}: ${remaining} of ${payment.amount}.`,
        "amount",
      );
    }

    const metadata = refundMetadata(payment.metadata, input.metadata);
    if (!metadata) {
      throw invalidParam("metadata", `A refund carries its payment's metadata with its own on top, at most ${METADATA_MAX_KEYS} keys in all: this payment's and these make more.`);
    }

    const [refund] = await tx
      .insert(refunds)
      .values({
        id: newId("refund", now),
        merchantId: ctx.merchant.id,
        livemode: ctx.livemode,
        paymentId: payment.id,
        amount,
        currency: payment.currency,
        status: "pending",
        reason: input.reason ?? null,
        provider: payment.provider,
        metadata,
        idempotencyKey: input.idempotencyKey ?? null,
        // The request submits it now; the due-work verb waits this long before presuming it died.
        nextCheckAt: refundSubmitLeaseEnds(now),
        createdAt: now,
        updatedAt: now,
      })
      .returning();
    return { refund: refund!, payment };
  });
}

/** Whether `input` asks for the refund `made` is (an amount left out took what remained then). */
function sameRefundRequest(made: Refund, input: CreateRefundInput, payment: Payment): boolean {
  if (input.amount !== undefined && input.amount !== made.amount) return false;
  if ((input.reason ?? null) !== made.reason) return false;
  const metadata = refundMetadata(payment.metadata, input.metadata);
  return metadata !== null && sameMetadata(metadata, made.metadata);
}
