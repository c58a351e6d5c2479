import { apiRoute, notFoundRoute } from "@/server/http/api-route";
import { paymentOperations, toPaymentResource } from "@/server/schemas/payments";
import { getPayment } from "@/server/services/payments/get-payment";

// GET /v1/payments/{id} – retrieve one payment
export const GET = apiRoute(paymentOperations.retrieve, async ({ ctx, params }) => toPaymentResource(await getPayment(ctx, params.id!)));

// Other methods get the same 404 envelope as an unknown URL, not an empty 405.
export { notFoundRoute as POST, notFoundRoute as PUT, notFoundRoute as PATCH, notFoundRoute as DELETE, notFoundRoute as OPTIONS };
