import type { CheckoutSession } from "@/db/schema";
import { apiRoute, listResponse, notFoundRoute } from "@/server/http/api-route";
import { checkoutSessionOperations, toCheckoutSessionResource } from "@/server/schemas/checkout-sessions";
import { createCheckoutSession } from "@/server/services/checkout-sessions/create-checkout-session";
import { listCheckoutSessions } from "@/server/services/checkout-sessions/list-checkout-sessions";

// POST /v1/checkout_sessions – a hosted checkout for one order
export const POST = apiRoute(checkoutSessionOperations.create, async ({ ctx, body, responseRecord }) =>
  toCheckoutSessionResource(
    await createCheckoutSession(ctx, {
      amount: body.amount,
      currency: body.currency,
      reference: body.reference,
      metadata: body.metadata,
      successUrl: body.success_url,
      cancelUrl: body.cancel_url,
      expiresIn: body.expires_in,
      response: responseRecord((s: CheckoutSession) => toCheckoutSessionResource(s, ctx.clock.now())),
    }),
    ctx.clock.now(),
  ),
);

// GET /v1/checkout_sessions – newest first, keyset cursors
export const GET = apiRoute(checkoutSessionOperations.list, async ({ ctx, query, url }) =>
  listResponse(url, await listCheckoutSessions(ctx, { limit: query.limit, startingAfter: query.starting_after, endingBefore: query.ending_before }), (s) =>
    toCheckoutSessionResource(s, ctx.clock.now()),
  ),
);

export { notFoundRoute as PUT, notFoundRoute as PATCH, notFoundRoute as DELETE, notFoundRoute as OPTIONS };
