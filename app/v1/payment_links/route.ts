import { apiRoute, listResponse, notFoundRoute } from "@/server/http/api-route";
import { paymentLinkOperations, toPaymentLinkResource } from "@/server/schemas/payment-links";
import { createPaymentLink } from "@/server/services/payment-links/create-payment-link";
import { listPaymentLinks } from "@/server/services/payment-links/list-payment-links";

// POST /v1/payment_links – a shareable page that charges a fixed amount
export const POST = apiRoute(paymentLinkOperations.create, async ({ ctx, body, responseRecord }) =>
  toPaymentLinkResource(
    await createPaymentLink(ctx, {
      amount: body.amount,
      currency: body.currency,
      description: body.description,
      singleUse: body.single_use,
      expiresAt: body.expires_at,
      metadata: body.metadata,
      response: responseRecord(toPaymentLinkResource),
    }),
  ),
);

// GET /v1/payment_links – newest first, keyset cursors, `active` filter
export const GET = apiRoute(paymentLinkOperations.list, async ({ ctx, query, url }) =>
  listResponse(
    url,
    await listPaymentLinks(ctx, { active: query.active }, { limit: query.limit, startingAfter: query.starting_after, endingBefore: query.ending_before }),
    toPaymentLinkResource,
  ),
);

export { notFoundRoute as PUT, notFoundRoute as PATCH, notFoundRoute as DELETE, notFoundRoute as OPTIONS };
