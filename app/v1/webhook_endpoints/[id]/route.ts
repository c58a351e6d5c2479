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
export const POST = apiRoute(webhookOperations.updateEndpoint, async ({ ctx, params, body }) =>
  toEndpointResource(
    await updateEndpoint(ctx, params.id!, {
      url: body.url,
      enabledEvents: body.enabled_events,
      description: body.description,
      metadata: body.metadata,
      disabled: body.disabled,
    }),
    { now: ctx.clock.now() },
  ),
);

// DELETE /v1/webhook_endpoints/{id} – nothing more is sent to it
export const DELETE = apiRoute(webhookOperations.deleteEndpoint, async ({ ctx, params }) => ({
  id: (await deleteEndpoint(ctx, params.id!)).id,
  object: "webhook_endpoint" as const,
  livemode: ctx.livemode,
  deleted: true as const,
}));

export { notFoundRoute as PUT, notFoundRoute as PATCH, notFoundRoute as OPTIONS };
