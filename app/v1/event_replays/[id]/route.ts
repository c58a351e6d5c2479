import { apiRoute, notFoundRoute } from "@/server/http/api-route";
import { eventOperations, toEventReplayResource } from "@/server/schemas/events";
import { getEventReplay } from "@/server/services/events/get-event-replay";

// GET /v1/event_replays/{id} – a window replay: follow one answered `running` to its end
export const GET = apiRoute(eventOperations.retrieveReplay, async ({ ctx, params }) => toEventReplayResource(await getEventReplay(ctx, params.id!)));

export { notFoundRoute as POST, notFoundRoute as PUT, notFoundRoute as PATCH, notFoundRoute as DELETE, notFoundRoute as OPTIONS };
