import type { WebhookEndpoint } from "@/db/schema";
import { apiRoute, notFoundRoute } from "@/server/http/api-route";
import { toEndpointResource, webhookOperations } from "@/server/schemas/webhooks";
import { deleteEndpoint } from "@/server/services/webhooks/delete-endpoint";
import { getEndpoint } from "@/server/services/webhooks/get-endpoint";
import { updateEndpoint } from "@/server/services/webhooks/update-endpoint";

// GET /v1/webhook_endpoints/{id} – one endpoint with its health
export const GET = apiRoute(webhookOperations.retrieveEndpoint, async ({ ctx, params }) =>
  toEndpointResource(await getEndpoint(ctx, params.id!), { now: ctx.clock.now() }),
);

// POST /v1/webhook_endpoints/{id} – change url, events, description, metadata; disable or enable
export const POST = apiRoute(webhookOperations.updateEndpoint, async ({ ctx, params, body, responseRecord }) => {
  const shown = (e: WebhookEndpoint) => toEndpointResource(e, { now: ctx.clock.now() });
  const input = { url: body.url, enabledEvents: body.enabled_events, description: body.description, metadata: body.metadata, disabled: body.disabled };
  return shown(await updateEndpoint(ctx, params.id!, input, responseRecord(shown)));
});

// DELETE /v1/webhook_endpoints/{id} – nothing more is sent to it
export const DELETE = apiRoute(webhookOperations.deleteEndpoint, async ({ ctx, params, responseRecord }) => {
  const shown = ({ id }: { id: string }) => ({ id, object: "webhook_endpoint" as const, livemode: ctx.livemode, deleted: true as const });
  return shown(await deleteEndpoint(ctx, params.id!, responseRecord(shown)));
});

export { notFoundRoute as PUT, notFoundRoute as PATCH, notFoundRoute as OPTIONS };
