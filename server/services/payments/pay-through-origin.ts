import type { Payment } from "@/db/schema";
import { invalidParam } from "@/server/domain/errors";
import type { Currency } from "@/server/domain/money";
import type { BaseContext } from "@/server/context";
import type { ProviderRegistry } from "@/server/providers/port";
import { actForMerchant } from "../merchants/act-for-merchant";
import { createPayment, type PaymentOrigin } from "./create-payment";

/** A link or a session as a customer pays it: its owner, and what every payment through it carries. */
export type PayableOrigin = { id: string; merchantId: string; livemode: boolean; amount: number; currency: Currency; metadata: Record<string, string> };

export type CustomerAttempt = {
  /** The customer's number as typed. */
  msisdn: string;
  /** One per attempt, from the page: a retry of the same attempt answers with its payment. */
  idempotencyKey: string;
};

/**
 * A customer's payment through a link or a session (their pages call the verbs that call this; no
 * API key): the origin's amount, currency and metadata, in the origin's merchant and environment,
 * made by createPayment with the origin's claim in the insert's transaction.
 */
export async function payThroughOrigin(
  base: BaseContext & { providers: ProviderRegistry },
  owner: PayableOrigin,
  attempt: CustomerAttempt,
  origin: PaymentOrigin,
  job: string,
): Promise<Payment> {
  if (attempt.idempotencyKey.length < 1 || attempt.idempotencyKey.length > 255) {
    throw invalidParam("idempotency_key", "idempotency_key must be 1–255 characters.");
  }
  const ctx = await actForMerchant(base, owner, { type: "system", job });
  return createPayment(ctx, {
    amount: owner.amount,
    currency: owner.currency,
    method: "wallet",
    msisdn: attempt.msisdn,
    metadata: owner.metadata,
    // Kept apart from the merchant's own Idempotency-Keys, which share the payments' unique index.
    idempotencyKey: `${owner.id}:${attempt.idempotencyKey}`,
    origin,
  });
}
