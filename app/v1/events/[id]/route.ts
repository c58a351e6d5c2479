import { apiRoute, notFoundRoute } from "@/server/http/api-route";
import { eventOperations, toEventResource } from "@/server/schemas/events";
import { getEvent } from "@/server/services/events/get-event";

// GET /v1/events/{id} – one event
export const GET = apiRoute(eventOperations.retrieve, async ({ ctx, params }) => toEventResource(await getEvent(ctx, params.id!)));

export { notFoundRoute as POST, notFoundRoute as PUT, notFoundRoute as PATCH, notFoundRoute as DELETE, notFoundRoute as OPTIONS };
