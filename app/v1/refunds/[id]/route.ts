import { apiRoute, notFoundRoute } from "@/server/http/api-route";
import { refundOperations, toRefundResource } from "@/server/schemas/refunds";
import { getRefund } from "@/server/services/refunds/get-refund";

// GET /v1/refunds/{id} – retrieve one refund
export const GET = apiRoute(refundOperations.retrieve, async ({ ctx, params }) => toRefundResource(await getRefund(ctx, params.id!)));

// Other methods get the same 404 envelope as an unknown URL, not an empty 405.
export { notFoundRoute as POST, notFoundRoute as PUT, notFoundRoute as PATCH, notFoundRoute as DELETE, notFoundRoute as OPTIONS };
