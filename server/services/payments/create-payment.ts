import { and, eq } from "drizzle-orm";
import { payments, type Payment } from "@/db/schema";
import { violatedUniqueConstraint } from "@/db/errors";
import { ServiceError } from "@/server/domain/errors";
import { quoteFee } from "@/server/domain/fees";
import { newId } from "@/server/domain/ids";
import type { Currency, PaymentMethod } from "@/server/domain/money";
import { normaliseMsisdn } from "@/server/domain/msisdn";
import type { ServiceContext } from "@/server/context";
import { env } from "@/server/env";
import { IDEMPOTENCY_TTL_MS } from "@/server/domain/idempotency";
import { signalJobs } from "@/server/services/job-signals";
import { callProvider } from "../providers/call-provider";
import { insertPaymentRow, recordPromptSent } from "./prepared";
import { transitionPayment } from "./transition-payment";

export type CreatePaymentInput = {
  amount: number;
  currency: Currency;
  method: PaymentMethod;
  reference: string;
  msisdn: string;
  metadata?: Record<string, string>;
  /** The caller's Idempotency-Key. A retry with it finds and finishes a half-made payment. */
  idempotencyKey?: string;
};

/**
 * Creates a payment and asks the wallet provider for the PIN prompt.
 *
 * Crash safety: the row is committed before the push, and the push carries our payment id as the
 * provider's idempotency key. A crash before the push, during it or before its result is saved
 * leaves a row with `prompt_sent_at` null; the retry (same Idempotency-Key) finds that row and
 * pushes again, which the provider dedupes, so there is never a second prompt or a second payment.
 */
export async function createPayment(ctx: ServiceContext, input: CreatePaymentInput): Promise<Payment> {
  const number = normaliseMsisdn(input.msisdn);
  if (!number.ok) throw new ServiceError("msisdn_invalid", number.message, "customer.msisdn");

  // Insert first: the common case costs one statement, and a retry that finds its own row
  // (unique on the Idempotency-Key) continues with it.
  const payment = await insertPayment(ctx, input, number.msisdn, number.network);

  if (payment.promptSentAt || payment.status !== "awaiting_customer") return payment;
  signalJobs({ type: "payment.created", paymentId: payment.id, expiresAt: payment.expiresAt });
  return pushPrompt(ctx, payment);
}

async function findByIdempotencyKey(ctx: ServiceContext, key: string): Promise<Payment | undefined> {
  const [row] = await ctx.db
    .select()
    .from(payments)
    .where(and(eq(payments.merchantId, ctx.merchant.id), eq(payments.livemode, ctx.livemode), eq(payments.idempotencyKey, key)));
  if (!row || ctx.clock.now().getTime() - row.createdAt.getTime() < IDEMPOTENCY_TTL_MS) return row;
  // Keys are kept 24 h: an older payment no longer answers for this key, and gives it up so that
  // the unique index lets the new request's payment take it.
  await ctx.db
    .update(payments)
    .set({ idempotencyKey: null })
    .where(and(eq(payments.id, row.id), eq(payments.idempotencyKey, key)));
  return undefined;
}

async function insertPayment(ctx: ServiceContext, input: CreatePaymentInput, msisdn: string, network: string): Promise<Payment> {
  const now = ctx.clock.now();
  const quote = quoteFee(ctx.merchant.feePlan, ctx.merchant.feeBearer, input.amount, input.currency);
  try {
    return await insertPaymentRow(ctx.db, {
      id: newId("payment", now),
      merchantId: ctx.merchant.id,
      livemode: ctx.livemode,
      amount: quote.amount,
      currency: quote.currency,
      method: input.method,
      reference: input.reference,
      customerMsisdn: msisdn,
      network,
      fee: quote.fee,
      feeBearer: quote.fee_bearer,
      chargedAmount: quote.charged_amount,
      status: "awaiting_customer",
      provider: ctx.providers.forPayment({ livemode: ctx.livemode, msisdn }).name,
      metadata: input.metadata ?? {},
      idempotencyKey: input.idempotencyKey ?? null,
      expiresAt: new Date(now.getTime() + ctx.merchant.paymentExpirySeconds * 1000),
      createdAt: now,
      updatedAt: now,
    });
  } catch (e) {
    const constraint = violatedUniqueConstraint(e);
    // A retry of our own half-made payment collides on both indexes, and PostgreSQL names
    // whichever it checked first: look for our row before blaming the reference.
    if (constraint !== null && input.idempotencyKey) {
      const existing = await findByIdempotencyKey(ctx, input.idempotencyKey);
      if (existing) return existing;
      // A day-old payment just gave the key up (see findByIdempotencyKey): this one may take it.
      if (constraint === "payments_idempotency_key") return insertPayment(ctx, input, msisdn, network);
    }
    if (constraint === "payments_reference_key") {
      throw new ServiceError(
        "reference_in_use",
        `A payment with reference '${input.reference}' already exists. Fetch it instead of creating another.`,
        "reference",
      );
    }
    throw e;
  }
}

async function pushPrompt(ctx: ServiceContext, payment: Payment): Promise<Payment> {
  const result = await callProvider(
    ctx.providers.forPayment({ livemode: payment.livemode, msisdn: payment.customerMsisdn }),
    (provider, signal) =>
      provider.push(
        {
          idempotencyKey: payment.id,
          msisdn: payment.customerMsisdn,
          amount: payment.chargedAmount,
          currency: payment.currency,
          reference: payment.reference,
          expiresAt: payment.expiresAt,
        },
        signal,
      ),
    { timeoutMs: env().PROVIDER_PUSH_TIMEOUT_MS, what: "push", about: { payment: payment.id } },
  );

  const now = ctx.clock.now();
  if (result === "unavailable") {
    // The prompt may or may not have gone out: unknown, never failed. Reconciliation asks later.
    return (await transitionPayment(ctx, { paymentId: payment.id, to: "unknown" })).payment;
  }
  if (result.outcome === "rejected") {
    return (
      await transitionPayment(ctx, {
        paymentId: payment.id,
        to: "failed",
        failure: { code: result.failureCode, message: result.message },
        providerReference: result.providerReference,
        promptSentAt: now,
      })
    ).payment;
  }
  // Compare-and-set: only a payment still waiting for its prompt records it. Losing the race (a
  // callback or the expiry got there first) is normal: the current row is the answer.
  const updated = await recordPromptSent(ctx.db, payment.id, now, result.providerReference);
  if (updated) return updated;
  const [current] = await ctx.db.select().from(payments).where(eq(payments.id, payment.id));
  return current!;
}

