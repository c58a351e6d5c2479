import type { WebhookEndpoint } from "@/db/schema";
import { apiRoute, listResponse, notFoundRoute } from "@/server/http/api-route";
import { toEndpointResource, webhookOperations } from "@/server/schemas/webhooks";
import { createEndpoint } from "@/server/services/webhooks/create-endpoint";
import { listEndpoints } from "@/server/services/webhooks/list-endpoints";

// POST /v1/webhook_endpoints – register a URL; the answer shows the signing secret, once
export const POST = apiRoute(webhookOperations.createEndpoint, async ({ ctx, body, responseRecord }) =>
  toEndpointResource(
    await createEndpoint(ctx, {
      url: body.url,
      enabledEvents: body.enabled_events,
      description: body.description,
      metadata: body.metadata,
      response: responseRecord((e: WebhookEndpoint) => toEndpointResource(e, { withSecret: true })),
    }),
    { withSecret: true },
  ),
);

// GET /v1/webhook_endpoints – newest first, keyset cursors
export const GET = apiRoute(webhookOperations.listEndpoints, async ({ ctx, query, url }) =>
  listResponse(url, await listEndpoints(ctx, { limit: query.limit, startingAfter: query.starting_after, endingBefore: query.ending_before }), (e) =>
    toEndpointResource(e, { now: ctx.clock.now() }),
  ),
);

export { notFoundRoute as PUT, notFoundRoute as PATCH, notFoundRoute as DELETE, notFoundRoute as OPTIONS };
