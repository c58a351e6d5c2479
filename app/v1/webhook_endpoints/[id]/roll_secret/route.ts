import type { WebhookEndpoint } from "@/db/schema";
import { apiRoute, notFoundRoute } from "@/server/http/api-route";
import { toEndpointResource, webhookOperations } from "@/server/schemas/webhooks";
import { rollEndpointSecret } from "@/server/services/webhooks/roll-endpoint-secret";

// POST /v1/webhook_endpoints/{id}/roll_secret – a new secret; the old one signs too for 24 h
export const POST = apiRoute(webhookOperations.rollSecret, async ({ ctx, params, responseRecord }) => {
  const shown = (e: WebhookEndpoint) => toEndpointResource(e, { withSecret: true, now: ctx.clock.now() });
  return shown(await rollEndpointSecret(ctx, params.id!, responseRecord(shown)));
});

export { notFoundRoute as GET, notFoundRoute as PUT, notFoundRoute as PATCH, notFoundRoute as DELETE, notFoundRoute as OPTIONS };
