import { z } from "zod";
import { dashboardIdempotencyKey } from "@/server/domain/idempotency";
import { MAX_AMOUNT } from "@/server/domain/money";
import { REFUND_REASONS } from "@/server/domain/refunds";
import { staffPaymentSelection, toPaymentResource } from "@/server/schemas/payments";
import { toRefundResource } from "@/server/schemas/refunds";
import { getPayment } from "@/server/services/payments/get-payment";
import { listPayments, staffPaymentFilters } from "@/server/services/payments/list-payments";
import { paymentTimeline } from "@/server/services/payments/payment-timeline";
import { resolveUnresolvedPayment } from "@/server/services/payments/resolve-unresolved-payment";
import { createRefund } from "@/server/services/refunds/create-refund";
import { adminProcedure, developerProcedure, objectId, pageInput, router, viewerProcedure } from "../init";

export const paymentsRouter = router({
  /** The payments table: filters as GET /v1/payments has them, keyset pages. */
  list: viewerProcedure
    .input(
      staffPaymentSelection.extend({
        ...pageInput,
      }),
    )
    .query(async ({ ctx, input: { limit, startingAfter, endingBefore, ...selection } }) => {
      const page = await listPayments(ctx.service, staffPaymentFilters(selection), { limit, startingAfter, endingBefore });
      return { data: page.data.map(toPaymentResource), hasMore: page.hasMore };
    }),

  get: viewerProcedure.input(z.object({ id: objectId })).query(async ({ ctx, input }) => toPaymentResource(await getPayment(ctx.service, input.id))),

  /** The detail page: the payment, what remains refundable, and everything that happened to it in time order. */
  timeline: viewerProcedure.input(z.object({ id: objectId })).query(({ ctx, input }) => paymentTimeline(ctx.service, input.id)),

  /**
   * Refund all or part of a succeeded payment. The form makes one key per render, so a double
   * click (or a retry after a lost answer) finds the first refund instead of making a second.
   */
  refund: developerProcedure
    .input(
      z.object({
        paymentId: objectId,
        amount: z.number().int().gt(0).max(MAX_AMOUNT).optional(),
        reason: z.enum(REFUND_REASONS).optional(),
        idempotencyKey: z.string().min(16).max(200),
      }),
    )
    .mutation(async ({ ctx, input }) =>
      toRefundResource(
        await createRefund(ctx.service, { paymentId: input.paymentId, amount: input.amount, reason: input.reason, idempotencyKey: dashboardIdempotencyKey("refund", input.idempotencyKey) }),
      ),
    ),

  /** Close an unresolved payment by hand, with the reason kept for audit. */
  resolve: adminProcedure
    .input(z.object({ paymentId: objectId, outcome: z.enum(["succeeded", "failed"]), reason: z.string().max(500) }))
    .mutation(async ({ ctx, input }) => toPaymentResource(await resolveUnresolvedPayment(ctx.service, input))),
});
