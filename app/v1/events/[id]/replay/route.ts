import { apiRoute, listResponse, notFoundRoute } from "@/server/http/api-route";
import { eventOperations } from "@/server/schemas/events";
import { toDeliveryResource } from "@/server/schemas/webhooks";
import { replayEvent } from "@/server/services/events/replay-event";

// POST /v1/events/{id}/replay – queue the event again; answers with the deliveries queued
export const POST = apiRoute(eventOperations.replay, async ({ ctx, params, body, url }) =>
  listResponse(url, { data: (await replayEvent(ctx, params.id!, body.endpoint)).deliveries, hasMore: false }, toDeliveryResource),
);

export { notFoundRoute as GET, notFoundRoute as PUT, notFoundRoute as PATCH, notFoundRoute as DELETE, notFoundRoute as OPTIONS };
