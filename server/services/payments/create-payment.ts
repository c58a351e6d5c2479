import { and, eq } from "drizzle-orm";
import type { Db } from "@/db/client";
import { payments, type Payment } from "@/db/schema";
import { violatedUniqueConstraint } from "@/db/errors";
import { idempotencyKeyReused, invalidParam, pageAddressLimitReached, promptLimitReached, referenceInUse, ServiceError, testPageLimitReached } from "@/server/domain/errors";
import { quoteFee } from "@/server/domain/fees";
import { newId } from "@/server/domain/ids";
import { sameMetadata } from "@/server/domain/metadata";
import { formatAmount, type Currency, type PaymentMethod } from "@/server/domain/money";
import { normaliseMsisdn } from "@/server/domain/msisdn";
import type { ServiceContext } from "@/server/context";
import { env } from "@/server/env";
import { IDEMPOTENCY_TTL_MS } from "@/server/domain/idempotency";
import { log } from "@/server/log";
import {
  consumePagePaymentByAddress,
  consumePinPrompt,
  consumeTestPagePayment,
  returnPagePaymentByAddress,
  returnPinPrompt,
  returnTestPagePayment,
} from "@/server/rate-limit";
import type { KeyClaim } from "@/server/services/idempotency/claim";
import type { ResponseRecord } from "@/server/services/idempotency/completion";
import { signalJobs } from "@/server/services/job-signals";
import { callProvider } from "../providers/call-provider";
import { claimAndInsertPayment, findPayment, insertPaymentRow, recordPromptSent, type InsertablePayment } from "./prepared";
import { askProvider } from "./ask-provider";
import { transitionPayment } from "./transition-payment";

/**
 * Where a customer pays from (a payment link or a checkout session) and the claim on it. `claim`
 * runs in the transaction that inserts the payment, before the insert: it locks the origin's row
 * (so claims on one origin queue behind each other), refuses when the origin cannot take this
 * payment, and names the payment's reference. If the insert fails, whatever the claim wrote rolls
 * back with it.
 */
export type PaymentOrigin = {
  paymentLinkId: string | null;
  checkoutSessionId: string | null;
  claim(tx: Db, payment: { id: string; now: Date }): Promise<{ reference: string }>;
};

export type CreatePaymentInput = {
  amount: number;
  currency: Currency;
  method: PaymentMethod;
  msisdn: string;
  metadata?: Record<string, string>;
  /** The caller's Idempotency-Key. A retry with it finds and finishes a half-made payment. */
  idempotencyKey?: string;
  /** The request's idempotency record: the write that records the prompt also stores the response. */
  response?: ResponseRecord<Payment>;
  /** The request's key, not yet claimed: the payment's INSERT claims it (direct payments only). */
  claim?: KeyClaim;
} & (
  | { reference: string; origin?: undefined; quotedChargedAmount?: undefined }
  | {
      reference?: undefined;
      origin: PaymentOrigin;
      /**
       * The charge the customer's page showed when Pay was tapped. A new payment whose charge would
       * differ (the merchant changed who bears the fee since) is refused before any prompt: the
       * customer approves on the phone only an amount the page showed them.
       */
      quotedChargedAmount?: number;
    }
);

/** The refusal's `param` when the charge is not the one the page showed (app/(hosted)/actions.ts shows the page again). */
export const QUOTE_CHANGED_PARAM = "charged_amount";

/**
 * Creates a payment and asks the wallet provider for the PIN prompt.
 *
 * Crash safety: the row is committed before the push, and the push carries our payment id as the
 * provider's idempotency key. A crash before the push, during it or before its result is saved
 * leaves a row with `prompt_sent_at` null; the retry (same Idempotency-Key) finds that row and
 * pushes again, which the provider dedupes, so there is never a second prompt or a second payment.
 * A retry's push that the provider refuses (as a copy, say) fails the payment only on the
 * provider's word about the payment when asked: never on that refusal alone.
 */
export async function createPayment(ctx: ServiceContext, input: CreatePaymentInput): Promise<Payment> {
  const number = normaliseMsisdn(input.msisdn);
  if (!number.ok) throw new ServiceError("msisdn_invalid", number.message, "customer.msisdn");

  // Insert first: the common case costs one statement, and a retry that finds its own row
  // (unique on the Idempotency-Key) continues with it. Payments through a link or a session pay
  // for their claim with a transaction; direct ones never do.
  let made: Made;
  if (input.origin) {
    made = await insertClaimedPayment(ctx, input, input.origin, number.msisdn, number.network);
  } else {
    await spendPromptBudget(ctx, number.msisdn);
    try {
      made = await insertPayment(ctx, input, input.reference, number.msisdn, number.network, input.claim);
    } catch (e) {
      // No prompt goes out for this request (a replay, a conflict, a clash): the budget is the number's.
      await giveBackPromptBudget(ctx, number.msisdn);
      throw e;
    }
  }

  const { payment } = made;
  if (payment.promptSentAt || payment.status !== "awaiting_customer") return payment;
  signalJobs({ type: "payment.created", paymentId: payment.id, expiresAt: payment.expiresAt });
  return pushPrompt(ctx, payment, input.response, made.retry);
}

/**
 * A live prompt reaches a real phone: a few a minute per number at most, counted before anything
 * is written. Test prompts go to the sandbox, whose numbers every integration shares, and are not
 * counted by number; a test link or checkout session (`originId`), which anyone holding its address
 * can pay without a key, takes a set number of new payments a minute instead. A repeated request
 * is answered before this (by the API's idempotency record, or the attempt's payment on a hosted
 * page); only a retry after a crash counts twice, and the budget leaves room for that.
 */
async function spendPromptBudget(ctx: ServiceContext, msisdn: string, originId: string | null = null): Promise<void> {
  // A page's payment also counts against the payer's address, when the proxies tell it: spent
  // first, and given back when the number's or the page's budget refuses, so a refusal costs none.
  const address = pageAddress(ctx, originId);
  if (address !== null) {
    const allowed = await consumePagePaymentByAddress(address);
    if (!allowed.ok) throw pageAddressLimitReached(allowed.retryAfterSeconds);
  }
  try {
    if (!ctx.livemode) {
      if (originId === null) return;
      const allowed = await consumeTestPagePayment(originId);
      if (!allowed.ok) throw testPageLimitReached(allowed.retryAfterSeconds);
      return;
    }
    const allowed = await consumePinPrompt(msisdn);
    if (!allowed.ok) throw promptLimitReached(allowed.retryAfterSeconds);
  } catch (e) {
    if (address !== null) await giveBack(returnPagePaymentByAddress(address));
    throw e;
  }
}

/** The client address a payment through a link or a session (`originId`) counts against, if known. */
const pageAddress = (ctx: ServiceContext, originId: string | null): string | null => (originId !== null && ctx.clientAddress ? ctx.clientAddress : null);

async function giveBackPromptBudget(ctx: ServiceContext, msisdn: string, originId: string | null = null): Promise<void> {
  const address = pageAddress(ctx, originId);
  await Promise.all([
    giveBack(ctx.livemode ? returnPinPrompt(msisdn) : originId !== null ? returnTestPagePayment(originId) : undefined),
    giveBack(address !== null ? returnPagePaymentByAddress(address) : undefined),
  ]);
}

async function giveBack(returned: Promise<void> | undefined): Promise<void> {
  await returned?.catch((error: unknown) => log.warn("prompt budget not given back", { error }));
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

function paymentValues(ctx: ServiceContext, input: CreatePaymentInput, reference: string, msisdn: string, network: string): InsertablePayment {
  const now = ctx.clock.now();
  const quote = quoteFee(ctx.merchant.feePlan, ctx.merchant.feeBearer, input.amount, input.currency);
  return {
    id: newId("payment", now),
    merchantId: ctx.merchant.id,
    livemode: ctx.livemode,
    amount: quote.amount,
    currency: quote.currency,
    method: input.method,
    reference,
    customerMsisdn: msisdn,
    network,
    fee: quote.fee,
    feeBearer: quote.fee_bearer,
    chargedAmount: quote.charged_amount,
    status: "awaiting_customer",
    provider: ctx.providers.forPayment({ livemode: ctx.livemode, msisdn }).name,
    metadata: input.metadata ?? {},
    idempotencyKey: input.idempotencyKey ?? null,
    paymentLinkId: input.origin?.paymentLinkId ?? null,
    checkoutSessionId: input.origin?.checkoutSessionId ?? null,
    expiresAt: new Date(now.getTime() + ctx.merchant.paymentExpirySeconds * 1000),
    createdAt: now,
    updatedAt: now,
  };
}

/** A payment made with the request's key asks for what this request asks: same money, order, customer and metadata. */
function samePaymentRequest(made: Payment, input: CreatePaymentInput, reference: string, msisdn: string): boolean {
  return (
    made.amount === input.amount &&
    made.currency === input.currency &&
    made.method === input.method &&
    made.reference === reference &&
    made.customerMsisdn === msisdn &&
    sameMetadata(made.metadata, input.metadata ?? {})
  );
}

/** The payment a create goes on with; `retry` when an earlier request (or one beside it) made it, and may have pushed already. */
type Made = { payment: Payment; retry: boolean };

/**
 * With the request's key not yet claimed (`claim`), the payment's INSERT claims it: a request
 * whose key is new costs one statement for both. A request that owns the key without that
 * statement having inserted (a crashed request's lock taken over) inserts as usual; when the
 * statement fails, the key is claimed alone and its error handled here as usual.
 */
async function insertPayment(
  ctx: ServiceContext,
  input: CreatePaymentInput,
  reference: string,
  msisdn: string,
  network: string,
  claim?: KeyClaim,
): Promise<Made> {
  try {
    const values = paymentValues(ctx, input, reference, msisdn, network);
    const inserted = claim ? await claim.withFirstWrite(claimAndInsertPayment(ctx.db, values)) : undefined;
    return { payment: inserted ?? (await insertPaymentRow(ctx.db, values)), retry: false };
  } catch (e) {
    const constraint = violatedUniqueConstraint(e);
    // A retry of our own half-made payment collides on both indexes, and PostgreSQL names
    // whichever it checked first: look for our row before blaming the reference.
    if (constraint !== null && input.idempotencyKey) {
      const existing = await findByIdempotencyKey(ctx, input.idempotencyKey);
      // The key's record is gone when the first request answered 5xx (none is kept): the payment
      // it made is this request's only if this request asks for the same one.
      if (existing && !samePaymentRequest(existing, input, reference, msisdn)) throw idempotencyKeyReused();
      if (existing) return { payment: existing, retry: true };
      // A day-old payment just gave the key up (see findByIdempotencyKey): this one may take it.
      if (constraint === "payments_idempotency_key") return insertPayment(ctx, input, reference, msisdn, network);
    }
    if (constraint === "payments_reference_key") throw referenceInUse(reference);
    // A checkout session holds it (migration 0009's trigger): one reference, one order.
    if (constraint === "checkout_sessions_reference_key") throw referenceInUse(reference, "checkout session");
    throw e;
  }
}

/**
 * A payment through a link or a session: the origin's claim and the insert in one transaction.
 * A retry with the same Idempotency-Key answers with its payment, whether it comes after the first
 * (found before claiming) or beside it (the claim refuses or the key's index collides, and the
 * first one's payment is the answer).
 */
async function insertClaimedPayment(ctx: ServiceContext, input: CreatePaymentInput, origin: PaymentOrigin, msisdn: string, network: string): Promise<Made> {
  const key = input.idempotencyKey;
  const earlier = key ? await findByIdempotencyKey(ctx, key) : undefined;
  // A retry of an attempt already made answers with its payment, whatever the charge would be now.
  if (earlier) return { payment: earlier, retry: true };
  const draft = paymentValues(ctx, input, "", msisdn, network);
  if (input.quotedChargedAmount !== undefined && draft.chargedAmount !== input.quotedChargedAmount) {
    throw invalidParam(QUOTE_CHANGED_PARAM, `The amount to pay has changed to ${formatAmount(draft.chargedAmount, draft.currency)} since this page was opened.`);
  }
  const originId = origin.paymentLinkId ?? origin.checkoutSessionId;
  await spendPromptBudget(ctx, msisdn, originId);
  let reference: string | undefined;
  try {
    const payment = await ctx.db.transaction(async (tx) => {
      ({ reference } = await origin.claim(tx, { id: draft.id, now: draft.createdAt }));
      const [row] = await tx.insert(payments).values({ ...draft, reference }).returning();
      return row!;
    });
    return { payment, retry: false };
  } catch (e) {
    // No prompt goes out for this request (the link or session refused it, or a double tap's
    // other half made the payment): the budget is the number's.
    await giveBackPromptBudget(ctx, msisdn, originId);
    const concurrent = key ? await findByIdempotencyKey(ctx, key) : undefined;
    if (concurrent) return { payment: concurrent, retry: true };
    if (reference !== undefined && violatedUniqueConstraint(e) === "payments_reference_key") throw referenceInUse(reference);
    throw e;
  }
}

async function pushPrompt(ctx: ServiceContext, payment: Payment, response: ResponseRecord<Payment> | undefined, retry: boolean): Promise<Payment> {
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
    // A retry's push may be refused as a copy of one the provider took from the earlier request
    // (which died before recording it, or runs beside this one), whose prompt may be on the phone:
    // failing it would ignore the customer's PIN. The provider's word on the payment decides: a
    // prompt still open waits for the PIN; no record of any push means none went out, and the
    // refusal stands as a first push's would.
    const asked = retry ? await askProvider(ctx.providers, { ...payment, providerReference: result.providerReference }) : undefined;
    if (asked?.kind === "unknown") return (await transitionPayment(ctx, { paymentId: payment.id, to: "unknown" })).payment;
    if (asked?.kind === "succeeded") return (await transitionPayment(ctx, { paymentId: payment.id, to: "succeeded", providerReference: result.providerReference })).payment;
    if (asked?.kind !== "pending" || asked.record === "none") {
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
    // Pending: the earlier push's prompt is out, as if this one had been accepted.
  }
  // Compare-and-set: only a payment still waiting for its prompt records it. Losing the race (a
  // callback or the expiry got there first) is normal: the current row is the answer.
  const updated = await recordPromptSent(ctx.db, payment, now, result.providerReference ?? null, response);
  if (updated) return updated;
  return (await findPayment(ctx.db, payment.id))!;
}

