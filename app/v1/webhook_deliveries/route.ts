import { apiRoute, listResponse, notFoundRoute } from "@/server/http/api-route";
import { toDeliveryResource, webhookOperations } from "@/server/schemas/webhooks";
import { listDeliveries } from "@/server/services/webhooks/list-deliveries";

// GET /v1/webhook_deliveries – deliveries with their attempts; filter by event, endpoint, status
export const GET = apiRoute(webhookOperations.listDeliveries, async ({ ctx, query, url }) =>
  listResponse(
    url,
    await listDeliveries(
      ctx,
      { eventId: query.event, endpointId: query.endpoint, status: query.status },
      { limit: query.limit, startingAfter: query.starting_after, endingBefore: query.ending_before },
    ),
    toDeliveryResource,
  ),
);

export { notFoundRoute as POST, notFoundRoute as PUT, notFoundRoute as PATCH, notFoundRoute as DELETE, notFoundRoute as OPTIONS };
