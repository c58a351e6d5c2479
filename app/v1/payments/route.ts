import { apiRoute, listResponse, notFoundRoute } from "@/server/http/api-route";
import { paymentOperations, toPaymentResource } from "@/server/schemas/payments";
import { createPayment } from "@/server/services/payments/create-payment";
import { listPayments } from "@/server/services/payments/list-payments";

// POST /v1/payments – charge a customer's wallet (PIN prompt sent during the request)
export const POST = apiRoute(
  paymentOperations.create,
  async ({ ctx, body, idempotencyKey, responseRecord, claim }) =>
  toPaymentResource(
    await createPayment(ctx, {
      amount: body.amount,
      currency: body.currency,
      method: body.method,
      reference: body.reference,
      msisdn: body.customer.msisdn,
      metadata: body.metadata,
      idempotencyKey: idempotencyKey ?? undefined,
      response: responseRecord(toPaymentResource),
      claim,
    }),
  ),
  // The payment's INSERT claims the Idempotency-Key: one statement and one commit for both.
  { claimInFirstWrite: true },
);

// GET /v1/payments – newest first, keyset cursors, filters
export const GET = apiRoute(paymentOperations.list, async ({ ctx, query, url }) => {
  const page = await listPayments(
    ctx,
    {
      status: query.status,
      method: query.method,
      currency: query.currency,
      search: query.search,
      createdGte: query["created[gte]"],
      createdLt: query["created[lt]"],
    },
    { limit: query.limit, startingAfter: query.starting_after, endingBefore: query.ending_before },
  );
  return listResponse(url, page, toPaymentResource);
});

// Other methods get the same 404 envelope as an unknown URL, not an empty 405.
export { notFoundRoute as PUT, notFoundRoute as PATCH, notFoundRoute as DELETE, notFoundRoute as OPTIONS };
