import { z } from "zod";
import type { Settlement, SettlementLine } from "@/db/schema";
import { CURRENCIES } from "@/server/domain/money";
import { SETTLEMENT_LINE_KINDS, SETTLEMENT_STATUSES } from "@/server/domain/settlements";
import { defineOperation, idParam, limitParam, listEnvelope, oneCursor, timestamp, iso } from "./common";

export const settlementResource = z.object({
  id: z.string().describe("Starts with stl_."),
  object: z.literal("settlement"),
  livemode: z.boolean(),
  status: z.enum(SETTLEMENT_STATUSES).describe("pending until paid out; failed when the payout bounced (its items go into the next batch)."),
  amount: z
    .number()
    .int()
    .describe("Net payout: gross_amount − fee_total − refund_total, always greater than 0 (when refunds and fees outweigh a period's payments no batch is made, and its items wait for the next one)."),
  currency: z.enum(CURRENCIES),
  gross_amount: z.number().int().describe("Sum of the settled payments' `amount`s (not `charged_amount`: a fee the customer paid on top is not the merchant's)."),
  fee_total: z.number().int().describe("Fees the merchant bore on those payments (customer-borne fees are not deducted)."),
  refund_total: z
    .number()
    .int()
    .describe("Sum of the refunds in this batch: those that succeeded before period_end and no earlier batch deducted, whichever batch paid their payments out."),
  payment_count: z.number().int(),
  refund_count: z.number().int(),
  period_start: timestamp.describe("When the earliest item in the batch succeeded."),
  period_end: timestamp.describe(
    "The cutoff (a midnight in Harare, UTC+2, for the daily run): every item in the batch succeeded before it. An item that succeeded before it and is not here is in an earlier batch or waits for a later one (a period whose refunds outweighed its payments, or a failed payout's items).",
  ),
  paid_at: timestamp.nullable(),
  failed_at: timestamp.nullable(),
  failure_message: z.string().nullable(),
  created_at: timestamp,
});

export const settlementLineResource = z.object({
  object: z.literal("settlement_line"),
  livemode: z.boolean(),
  type: z.enum(SETTLEMENT_LINE_KINDS),
  source: z.string().describe("The payment (pay_…) or refund (re_…)."),
  payment: z.string().describe("The payment the line is about: the source itself, or the payment a refund refunded."),
  reference: z.string().describe("That payment's reference: for a refund, the reference of the payment it refunded."),
  amount: z.number().int(),
  fee: z.number().int().describe("The fee the merchant bore on this payment (0 when the customer bore it); 0 for refunds, since fees are not refunded."),
  net: z.number().int().describe("What the line adds to the payout (negative for refunds)."),
  occurred_at: timestamp,
});

export const settlementWithLines = settlementResource.extend({
  lines: listEnvelope(settlementLineResource).describe("The first page of line items; more from its url."),
});

export function toSettlementResource(s: Settlement): z.infer<typeof settlementResource> {
  return {
    id: s.id,
    object: "settlement",
    livemode: s.livemode,
    status: s.status,
    amount: s.amount,
    currency: s.currency,
    gross_amount: s.grossAmount,
    fee_total: s.feeTotal,
    refund_total: s.refundTotal,
    payment_count: s.paymentCount,
    refund_count: s.refundCount,
    period_start: s.periodStart.toISOString(),
    period_end: s.periodEnd.toISOString(),
    paid_at: iso(s.paidAt),
    failed_at: iso(s.failedAt),
    failure_message: s.failureMessage,
    created_at: s.createdAt.toISOString(),
  };
}

export function toSettlementLineResource(l: SettlementLine & { paymentId: string; reference: string; livemode: boolean }): z.infer<typeof settlementLineResource> {
  return {
    object: "settlement_line",
    livemode: l.livemode,
    type: l.kind,
    source: l.objectId,
    payment: l.paymentId,
    reference: l.reference,
    amount: l.amount,
    fee: l.fee,
    net: l.net,
    occurred_at: l.occurredAt.toISOString(),
  };
}

const settlementCursor = idParam("settlement", "a settlement id");

export const listSettlementsQuery = z
  .strictObject({
    limit: limitParam,
    starting_after: settlementCursor.optional().describe("A settlement id: return the page after it (older)."),
    ending_before: settlementCursor.optional().describe("A settlement id: return the page before it (newer)."),
    status: z.enum(SETTLEMENT_STATUSES).optional(),
  })
  .refine(...oneCursor);

const lineCursor = z.string().regex(/^(pay|re)_[0-9a-z]{26}$/, "must be a payment or refund id from this batch's lines");

export const listSettlementLinesQuery = z
  .strictObject({
    limit: limitParam,
    starting_after: lineCursor.optional().describe("A line's source id: return the lines after it."),
    ending_before: lineCursor.optional().describe("A line's source id: return the lines before it."),
  })
  .refine(...oneCursor);

export const settlementOperations = {
  list: defineOperation({
    operationId: "listSettlements",
    method: "GET",
    path: "/v1/settlements",
    summary: "List settlement batches (payouts to your bank), newest first.",
    tag: "Settlements",
    scope: "settlements:read",
    query: listSettlementsQuery,
    idempotency: "none",
    status: 200,
    response: listEnvelope(settlementResource),
  }),
  retrieve: defineOperation({
    operationId: "retrieveSettlement",
    method: "GET",
    path: "/v1/settlements/{id}",
    summary: "Retrieve a settlement batch with the first page of its line items.",
    tag: "Settlements",
    scope: "settlements:read",
    idempotency: "none",
    status: 200,
    response: settlementWithLines,
    pathParams: { id: { description: "The settlement's id (stl_…).", id: "settlement" } },
  }),
  lines: defineOperation({
    operationId: "listSettlementLines",
    method: "GET",
    path: "/v1/settlements/{id}/lines",
    summary: "Page through a settlement batch's line items (refunds first, then payments, newest first).",
    tag: "Settlements",
    scope: "settlements:read",
    query: listSettlementLinesQuery,
    idempotency: "none",
    status: 200,
    response: listEnvelope(settlementLineResource),
    pathParams: { id: { description: "The settlement's id (stl_…).", id: "settlement" } },
  }),
  testRun: defineOperation({
    operationId: "runTestSettlements",
    method: "POST",
    path: "/v1/test_helpers/settlements/run",
    summary: "Test keys only: batch every succeeded, unsettled test payment and refund now (test batches pay out after a few seconds).",
    tag: "Test helpers",
    scope: "settlements:read",
    idempotency: "optional",
    notFound: true,
    status: 200,
    response: listEnvelope(settlementResource),
  }),
};
