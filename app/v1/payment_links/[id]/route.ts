import { apiRoute, notFoundRoute } from "@/server/http/api-route";
import { paymentLinkOperations, toPaymentLinkResource } from "@/server/schemas/payment-links";
import { getPaymentLink } from "@/server/services/payment-links/get-payment-link";

// GET /v1/payment_links/{id} – retrieve one link
export const GET = apiRoute(paymentLinkOperations.retrieve, async ({ ctx, params }) => toPaymentLinkResource(await getPaymentLink(ctx, params.id!)));

export { notFoundRoute as POST, notFoundRoute as PUT, notFoundRoute as PATCH, notFoundRoute as DELETE, notFoundRoute as OPTIONS };
