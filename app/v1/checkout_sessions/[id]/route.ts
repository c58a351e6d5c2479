import { apiRoute, notFoundRoute } from "@/server/http/api-route";
import { checkoutSessionOperations, toCheckoutSessionResource } from "@/server/schemas/checkout-sessions";
import { getCheckoutSession } from "@/server/services/checkout-sessions/get-checkout-session";

// GET /v1/checkout_sessions/{id} – retrieve one session, its status as of now
export const GET = apiRoute(checkoutSessionOperations.retrieve, async ({ ctx, params }) =>
  toCheckoutSessionResource(await getCheckoutSession(ctx, params.id!), ctx.clock.now()),
);

export { notFoundRoute as POST, notFoundRoute as PUT, notFoundRoute as PATCH, notFoundRoute as DELETE, notFoundRoute as OPTIONS };
