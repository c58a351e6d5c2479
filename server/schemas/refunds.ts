import { z } from "zod";
import type { Refund } from "@/db/schema";
import { CURRENCIES } from "@/server/domain/money";
import { REFUND_FAILURE_CODES, REFUND_REASONS, REFUND_STATUSES } from "@/server/domain/refunds";
import { defineOperation, idParam, iso, limitParam, listEnvelope, metadataSchema, oneCursor, timestamp, unsetWhenNull } from "./common";
import { amount } from "./payments";

const paymentId = idParam("payment", "a payment id");

export const createRefundBody = z.strictObject({
  payment: paymentId.describe("The succeeded payment to refund (pay_…)."),
  amount: amount
    .optional()
    .describe(
      "Amount to refund in minor units (cents), greater than 0. Defaults to all that remains refundable: the payment's `amount` less its pending and succeeded refunds. Fees are not refunded: when the customer bore the fee, a full refund returns `amount`, not `charged_amount`.",
    ),
  reason: unsetWhenNull(z.enum(REFUND_REASONS)),
  metadata: metadataSchema.optional().describe("Kept on top of the payment's metadata, which the refund carries too (at most 50 keys together)."),
});

export const refundResource = z.object({
  id: z.string().describe("Starts with re_."),
  object: z.literal("refund"),
  livemode: z.boolean(),
  payment: z.string().describe("The refunded payment (pay_…)."),
  amount: z.number().int(),
  currency: z.enum(CURRENCIES),
  status: z.enum(REFUND_STATUSES).describe("pending until the provider settles it, then succeeded or failed."),
  reason: z.enum(REFUND_REASONS).nullable(),
  failure_code: z.enum(REFUND_FAILURE_CODES).nullable().describe("Set when failed."),
  failure_message: z.string().nullable(),
  provider_reference: z.string().nullable(),
  metadata: z.record(z.string(), z.string()),
  created_at: timestamp,
  status_transitions: z.object({ succeeded_at: timestamp.nullable(), failed_at: timestamp.nullable() }),
});
export type RefundResource = z.infer<typeof refundResource>;

export function toRefundResource(r: Refund): RefundResource {
  return {
    id: r.id,
    object: "refund",
    livemode: r.livemode,
    payment: r.paymentId,
    amount: r.amount,
    currency: r.currency,
    status: r.status,
    reason: r.reason,
    failure_code: r.failureCode,
    failure_message: r.failureMessage,
    provider_reference: r.providerReference,
    metadata: r.metadata,
    created_at: r.createdAt.toISOString(),
    status_transitions: { succeeded_at: iso(r.succeededAt), failed_at: iso(r.failedAt) },
  };
}

const refundCursor = idParam("refund", "a refund id");

export const listRefundsQuery = z
  .strictObject({
    limit: limitParam,
    starting_after: refundCursor.optional().describe("A refund id: return the page after it (older)."),
    ending_before: refundCursor.optional().describe("A refund id: return the page before it (newer)."),
    payment: paymentId.optional().describe("Only this payment's refunds."),
  })
  .refine(...oneCursor);

export const refundOperations = {
  create: defineOperation({
    operationId: "createRefund",
    method: "POST",
    path: "/v1/refunds",
    summary: "Refund all or part of a succeeded payment to the customer's wallet.",
    tag: "Refunds",
    scope: "refunds:write",
    body: createRefundBody,
    idempotency: "required",
    notFound: true,
    errors: ["refund_amount_invalid"],
    status: 201,
    response: refundResource,
  }),
  list: defineOperation({
    operationId: "listRefunds",
    method: "GET",
    path: "/v1/refunds",
    summary: "List refunds, newest first, optionally of one payment.",
    tag: "Refunds",
    scope: "refunds:read",
    query: listRefundsQuery,
    idempotency: "none",
    status: 200,
    response: listEnvelope(refundResource),
  }),
  retrieve: defineOperation({
    operationId: "retrieveRefund",
    method: "GET",
    path: "/v1/refunds/{id}",
    summary: "Retrieve a refund.",
    tag: "Refunds",
    scope: "refunds:read",
    idempotency: "none",
    status: 200,
    response: refundResource,
    pathParams: { id: { description: "The refund's id (re_…).", id: "refund" } },
  }),
};
