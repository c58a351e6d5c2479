import { apiRoute, listResponse, notFoundRoute } from "@/server/http/api-route";
import { eventOperations, toEventReplayResource } from "@/server/schemas/events";
import { listEventReplays } from "@/server/services/events/list-event-replays";

// GET /v1/event_replays – window replays, newest first, keyset cursors
export const GET = apiRoute(eventOperations.listReplays, async ({ ctx, query, url }) =>
  listResponse(url, await listEventReplays(ctx, {}, { limit: query.limit, startingAfter: query.starting_after, endingBefore: query.ending_before }), toEventReplayResource),
);

export { notFoundRoute as POST, notFoundRoute as PUT, notFoundRoute as PATCH, notFoundRoute as DELETE, notFoundRoute as OPTIONS };
