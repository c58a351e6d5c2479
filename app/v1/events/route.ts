import { apiRoute, listResponse, notFoundRoute } from "@/server/http/api-route";
import { eventOperations, toEventResource } from "@/server/schemas/events";
import { listEvents } from "@/server/services/events/list-events";

// GET /v1/events – the event log, newest first; filter by type(s) and time
export const GET = apiRoute(eventOperations.list, async ({ ctx, query, url }) =>
  listResponse(
    url,
    await listEvents(
      ctx,
      { types: query.type, createdGte: query["created[gte]"], createdLt: query["created[lt]"] },
      { limit: query.limit, startingAfter: query.starting_after, endingBefore: query.ending_before },
    ),
    toEventResource,
  ),
);

export { notFoundRoute as POST, notFoundRoute as PUT, notFoundRoute as PATCH, notFoundRoute as DELETE, notFoundRoute as OPTIONS };
