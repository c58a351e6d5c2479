import { apiRoute, listResponse, notFoundRoute } from "@/server/http/api-route";
import { refundOperations, toRefundResource } from "@/server/schemas/refunds";
import { createRefund } from "@/server/services/refunds/create-refund";
import { listRefunds } from "@/server/services/refunds/list-refunds";

// POST /v1/refunds – refund a succeeded payment (submitted to the provider during the request)
export const POST = apiRoute(refundOperations.create, async ({ ctx, body, idempotencyKey }) =>
  toRefundResource(
    await createRefund(ctx, {
      paymentId: body.payment,
      amount: body.amount,
      reason: body.reason,
      metadata: body.metadata,
      idempotencyKey: idempotencyKey ?? undefined,
    }),
  ),
);

// GET /v1/refunds – newest first, keyset cursors, optionally one payment's
export const GET = apiRoute(refundOperations.list, async ({ ctx, query, url }) => {
  const page = await listRefunds(
    ctx,
    { paymentId: query.payment },
    { limit: query.limit, startingAfter: query.starting_after, endingBefore: query.ending_before },
  );
  return listResponse(url, page, toRefundResource);
});

// Other methods get the same 404 envelope as an unknown URL, not an empty 405.
export { notFoundRoute as PUT, notFoundRoute as PATCH, notFoundRoute as DELETE, notFoundRoute as OPTIONS };
