import { and, desc, eq, inArray, or } from "drizzle-orm";
import type { Db } from "@/db/client";
import { payments, type Payment } from "@/db/schema";
import { invalidParam } from "@/server/domain/errors";
import { isAttemptKey, MAX_ATTEMPT_KEYS } from "@/server/domain/hosted";
import { attemptIdempotencyKey } from "@/server/domain/idempotency";
import type { Currency } from "@/server/domain/money";
import type { CustomerContext } from "@/server/context";
import { actForMerchant } from "../merchants/act-for-merchant";
import { createPayment, type PaymentOrigin } from "./create-payment";

/** A link or a session as a customer pays it: its owner, and what every payment through it carries. */
export type PayableOrigin = { id: string; merchantId: string; livemode: boolean; amount: number; currency: Currency; metadata: Record<string, string> };

export type CustomerAttempt = {
  /** The customer's number as typed. */
  msisdn: string;
  /** One per attempt, from the page: a retry of the same attempt answers with its payment. */
  idempotencyKey: string;
  /** The charge the page showed when Pay was tapped (CreatePaymentInput's `quotedChargedAmount`). */
  quotedChargedAmount?: number;
};

/**
 * A customer's payment through a link or a session (their pages call the verbs that call this; no
 * API key): the origin's amount, currency and metadata, in the origin's merchant and environment,
 * made by createPayment with the origin's claim in the insert's transaction.
 */
export async function payThroughOrigin(
  base: CustomerContext,
  owner: PayableOrigin,
  attempt: CustomerAttempt,
  origin: PaymentOrigin,
  job: string,
): Promise<Payment> {
  if (!isAttemptKey(attempt.idempotencyKey)) {
    throw invalidParam("idempotency_key", "idempotency_key must be 1–255 characters, with no NUL or lone surrogate.");
  }
  const ctx = await actForMerchant(base, owner, { type: "system", job });
  return createPayment(ctx, {
    amount: owner.amount,
    currency: owner.currency,
    method: "wallet",
    msisdn: attempt.msisdn,
    metadata: owner.metadata,
    idempotencyKey: attemptIdempotencyKey(owner.id, attempt.idempotencyKey),
    origin,
    quotedChargedAmount: attempt.quotedChargedAmount,
  });
}

/** Whether one of `attemptKeys` made `payment` as an attempt through the origin `originId` (its key as payThroughOrigin stored it). */
export function madeByAttempt(payment: Pick<Payment, "idempotencyKey">, originId: string, attemptKeys: readonly string[]): boolean {
  return attemptKeys.some((key) => payment.idempotencyKey === attemptIdempotencyKey(originId, key));
}

/**
 * The newest payment one of `attemptKeys` made through `origin`, and which key made it: a page asks
 * with every attempt key its browser kept, since a later one may have been refused (another tab
 * had used the link) while an earlier one paid. One read on the idempotency index, for at most
 * MAX_ATTEMPT_KEYS keys; payment ids sort by the time they were made.
 */
export async function newestPaymentOfAttempts(
  db: Db,
  origin: Pick<PayableOrigin, "id" | "merchantId" | "livemode">,
  attemptKeys: readonly string[],
): Promise<{ payment: Payment; key: string } | undefined> {
  // A key no attempt could have (sent by hand: a NUL would fail the query itself) names none.
  const keys = [...new Set(attemptKeys.filter(isAttemptKey))].slice(0, MAX_ATTEMPT_KEYS);
  if (keys.length === 0) return undefined;
  const [payment] = await db
    .select()
    .from(payments)
    .where(
      and(
        eq(payments.merchantId, origin.merchantId),
        eq(payments.livemode, origin.livemode),
        // Made through this origin: a key of that shape on a payment the merchant made through the
        // API (its Idempotency-Key is theirs to choose) names no attempt of the page.
        or(eq(payments.paymentLinkId, origin.id), eq(payments.checkoutSessionId, origin.id)),
        inArray(
          payments.idempotencyKey,
          keys.map((key) => attemptIdempotencyKey(origin.id, key)),
        ),
      ),
    )
    .orderBy(desc(payments.id))
    .limit(1);
  return payment && { payment, key: payment.idempotencyKey!.slice(origin.id.length + 1) };
}
