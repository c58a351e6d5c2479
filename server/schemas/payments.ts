import { z } from "zod";
import type { Payment } from "@/db/schema";
import { maskMsisdn } from "@/server/domain/msisdn";
import { CURRENCIES, MAX_AMOUNT, METHODS } from "@/server/domain/money";
import { FAILURE_CODES, PAYMENT_STATUSES, TEST_PAYMENT_ACTIONS } from "@/server/domain/payment-status";
import { FEE_BEARERS } from "@/server/domain/fees";
import { defineOperation, idParam, iso, limitParam, listEnvelope, metadataSchema, oneCursor, timeBound, timestamp, windowOrder } from "./common";

export const amount = z
  .number({ error: "amount must be an integer number of cents" })
  // First: a number too large to be exact (1e20) is said to be too large, not to be no integer.
  .max(MAX_AMOUNT, `amount must be at most ${MAX_AMOUNT}`)
  .int("amount must be an integer number of cents")
  .gt(0, "amount must be greater than 0")
  .describe("Amount in minor units (cents), greater than 0.");
/** Refused in words by the validation ("currency must be USD or ZWG"), as every enum is. */
export const currency = z.enum(CURRENCIES);
const method = z.enum(METHODS);

export const reference = z
  .string({ error: "reference must be a string" })
  .min(1, "reference must not be empty")
  .regex(/\S/, "reference must not be blank")
  .max(255, "reference must be at most 255 characters")
  .describe("Your reference, unique per merchant and environment.");

export const createPaymentBody = z.strictObject({
  amount,
  currency,
  method,
  reference,
  customer: z.strictObject({
    msisdn: z
      .string({ error: "customer.msisdn must be a string" })
      .describe("The customer's mobile number; loose local forms are accepted and normalised to 2637XXXXXXXX."),
  }, { error: 'customer must be an object: {"msisdn": "0771234567"}' }),
  metadata: metadataSchema.optional(),
});
export type CreatePaymentBody = z.infer<typeof createPaymentBody>;

export const previewPaymentBody = z.strictObject({ amount, currency, method });

export const feeQuote = z.object({
  object: z.literal("payment_preview"),
  livemode: z.boolean(),
  amount: z.number().int(),
  currency: z.enum(CURRENCIES),
  fee: z.number().int(),
  fee_bearer: z.enum(FEE_BEARERS),
  charged_amount: z.number().int().describe("What the customer pays, fee included when they bear it."),
});

export const paymentResource = z.object({
  id: z.string().describe("Starts with pay_."),
  object: z.literal("payment"),
  livemode: z.boolean(),
  amount: z.number().int(),
  currency: z.enum(CURRENCIES),
  method: z.enum(METHODS),
  reference: z.string(),
  customer: z.object({ msisdn: z.string().describe("Strict form 2637XXXXXXXX.") }),
  customer_msisdn_masked: z.string().describe("Safe to show: the network prefix and last 3 digits only."),
  fee: z.number().int(),
  fee_bearer: z.enum(FEE_BEARERS),
  charged_amount: z.number().int(),
  amount_refunded: z.number().int().describe("Sum of the payment's succeeded refunds."),
  status: z.enum(PAYMENT_STATUSES),
  failure_code: z.enum(FAILURE_CODES).nullable(),
  failure_message: z.string().nullable(),
  provider_reference: z.string().nullable(),
  metadata: z.record(z.string(), z.string()),
  payment_link: z.string().nullable().describe("The payment link (plink_…) the customer paid through, if any."),
  checkout_session: z.string().nullable().describe("The checkout session (cs_…) the customer paid through, if any."),
  created_at: timestamp,
  expires_at: timestamp,
  status_transitions: z.object({
    unknown_at: timestamp.nullable(),
    succeeded_at: timestamp.nullable(),
    failed_at: timestamp.nullable(),
    expired_at: timestamp.nullable(),
    unresolved_at: timestamp.nullable(),
  }),
});
export type PaymentResource = z.infer<typeof paymentResource>;

export function toPaymentResource(p: Payment): PaymentResource {
  return {
    id: p.id,
    object: "payment",
    livemode: p.livemode,
    amount: p.amount,
    currency: p.currency,
    method: p.method,
    reference: p.reference,
    customer: { msisdn: p.customerMsisdn },
    customer_msisdn_masked: maskMsisdn(p.customerMsisdn),
    fee: p.fee,
    fee_bearer: p.feeBearer,
    charged_amount: p.chargedAmount,
    amount_refunded: p.amountRefunded,
    status: p.status,
    failure_code: p.failureCode,
    failure_message: p.failureMessage,
    provider_reference: p.providerReference,
    metadata: p.metadata,
    payment_link: p.paymentLinkId,
    checkout_session: p.checkoutSessionId,
    created_at: p.createdAt.toISOString(),
    expires_at: p.expiresAt.toISOString(),
    status_transitions: {
      unknown_at: iso(p.unknownSince),
      succeeded_at: iso(p.succeededAt),
      failed_at: iso(p.failedAt),
      expired_at: iso(p.expiredAt),
      unresolved_at: iso(p.unresolvedAt),
    },
  };
}

const paymentCursor = idParam("payment", "a payment id");

/**
 * What the dashboard's payments page selects, as its list and its CSV export both send it: the
 * API's filters (times as ISO strings), with a search box that also reads ids and numbers
 * (`staffPaymentFilters` turns it into list filters).
 */
export const staffPaymentSelection = z.strictObject({
  status: z.enum(PAYMENT_STATUSES).optional(),
  currency: z.enum(CURRENCIES).optional(),
  method: z.enum(METHODS).optional(),
  search: z.string().trim().min(1).max(255).optional(),
  createdGte: z.iso.datetime({ offset: true }).optional(),
  createdLt: z.iso.datetime({ offset: true }).optional(),
});
export type StaffPaymentSelection = z.infer<typeof staffPaymentSelection>;

export const listPaymentsQuery = z.strictObject({
  limit: limitParam,
  starting_after: paymentCursor.optional().describe("A payment id: return the page after it (older)."),
  ending_before: paymentCursor.optional().describe("A payment id: return the page before it (newer)."),
  status: z.enum(PAYMENT_STATUSES).optional(),
  method: method.optional(),
  currency: currency.optional(),
  search: z.string().min(1, "search must not be empty").max(255, "search must be at most 255 characters").optional().describe("Substring of the reference."),
  "created[gte]": timeBound.optional(),
  "created[lt]": timeBound.optional(),
})
  .refine(...oneCursor)
  .refine(...windowOrder("created[gte]", "created[lt]"));
export type ListPaymentsQuery = z.infer<typeof listPaymentsQuery>;

export const paymentOperations = {
  create: defineOperation({
    operationId: "createPayment",
    method: "POST",
    path: "/v1/payments",
    summary: "Charge a customer's mobile wallet: the customer gets a PIN prompt at once.",
    tag: "Payments",
    scope: "payments:write",
    body: createPaymentBody,
    idempotency: "required",
    errors: ["msisdn_invalid", "reference_in_use"],
    status: 201,
    response: paymentResource,
    responseDescription:
      "The payment, as the PIN prompt's request left it: `awaiting_customer` once the wallet took the request; `failed` with `failure_code: push_rejected` when it refused it (no prompt was sent); `unknown` when the request timed out (the outcome follows, by webhook or polling, never `failed` for the timeout alone).",
  }),
  list: defineOperation({
    operationId: "listPayments",
    method: "GET",
    path: "/v1/payments",
    summary: "List payments, newest first.",
    tag: "Payments",
    scope: "payments:read",
    query: listPaymentsQuery,
    idempotency: "none",
    status: 200,
    response: listEnvelope(paymentResource),
  }),
  retrieve: defineOperation({
    operationId: "retrievePayment",
    method: "GET",
    path: "/v1/payments/{id}",
    summary: "Retrieve a payment.",
    tag: "Payments",
    scope: "payments:read",
    idempotency: "none",
    status: 200,
    response: paymentResource,
    pathParams: { id: { description: "The payment's id (pay_…).", id: "payment" } },
  }),
  testHelper: defineOperation({
    operationId: "driveTestPayment",
    method: "POST",
    path: "/v1/test_helpers/payments/{id}/{action}",
    summary: "Test keys only: drive a test payment to succeeded, failed, expired, unknown, or age an unknown one by 24 h.",
    tag: "Test helpers",
    scope: "payments:write",
    idempotency: "optional",
    status: 200,
    response: paymentResource,
    pathParams: { id: { description: "The payment's id (pay_…).", id: "payment" }, action: { description: "What to do to the payment.", values: TEST_PAYMENT_ACTIONS } },
  }),
  preview: defineOperation({
    operationId: "previewPayment",
    method: "POST",
    path: "/v1/payments/preview",
    summary: "Quote the fee and the amount the customer will be charged, without charging.",
    tag: "Payments",
    scope: "payments:read",
    body: previewPaymentBody,
    idempotency: "none",
    status: 200,
    response: feeQuote,
  }),
};
