import { apiRoute, notFoundRoute } from "@/server/http/api-route";
import { paymentLinkOperations, toPaymentLinkResource } from "@/server/schemas/payment-links";
import { deactivatePaymentLink } from "@/server/services/payment-links/deactivate-payment-link";

// POST /v1/payment_links/{id}/deactivate – the link takes no more payments
export const POST = apiRoute(paymentLinkOperations.deactivate, async ({ ctx, params }) =>
  toPaymentLinkResource(await deactivatePaymentLink(ctx, params.id!)),
);

export { notFoundRoute as GET, notFoundRoute as PUT, notFoundRoute as PATCH, notFoundRoute as DELETE, notFoundRoute as OPTIONS };
