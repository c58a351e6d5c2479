import { apiRoute, notFoundRoute } from "@/server/http/api-route";
import { eventOperations } from "@/server/schemas/events";
import { replayEventWindow } from "@/server/services/events/replay-event-window";

// POST /v1/events/replay – replay a time window (after an outage); dry_run counts first
export const POST = apiRoute(eventOperations.replayWindow, async ({ ctx, body, idempotencyKey }) => {
  const dryRun = body.dry_run ?? false;
  const { events, deliveries, createdLt } = await replayEventWindow(ctx, {
    createdGte: body.created_gte,
    createdLt: body.created_lt,
    types: body.types,
    endpointId: body.endpoint,
    onlyUndelivered: body.only_undelivered,
    dryRun,
    idempotencyKey,
  });
  return {
    object: "event_replay" as const,
    livemode: ctx.livemode,
    dry_run: dryRun,
    created_gte: body.created_gte.toISOString(),
    created_lt: createdLt.toISOString(),
    events,
    deliveries,
  };
});

export { notFoundRoute as GET, notFoundRoute as PUT, notFoundRoute as PATCH, notFoundRoute as DELETE, notFoundRoute as OPTIONS };
