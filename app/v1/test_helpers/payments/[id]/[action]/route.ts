import { apiRoute, notFoundRoute } from "@/server/http/api-route";
import { paymentOperations, toPaymentResource } from "@/server/schemas/payments";
import { driveTestPayment } from "@/server/services/payments/drive-test-payment";

// POST /v1/test_helpers/payments/{id}/{action} – test keys only
export const POST = apiRoute(paymentOperations.testHelper, async ({ ctx, params }) =>
  toPaymentResource(await driveTestPayment(ctx, params.id!, params.action!)),
);

// Other methods get the same 404 envelope as an unknown URL, not an empty 405.
export { notFoundRoute as GET, notFoundRoute as PUT, notFoundRoute as PATCH, notFoundRoute as DELETE, notFoundRoute as OPTIONS };
