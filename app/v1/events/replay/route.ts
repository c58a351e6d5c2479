import { REPLAY_ANSWER_WITHIN_MS } from "@/server/domain/webhooks";
import { apiRoute, notFoundRoute } from "@/server/http/api-route";
import { eventOperations, toEventReplayResource } from "@/server/schemas/events";
import { replayEventWindow } from "@/server/services/events/replay-event-window";

// POST /v1/events/replay – replay a time window (after an outage); dry_run counts first. Answered
// within a few seconds: `running` when the window takes longer, carried on by the job runner.
export const POST = apiRoute(eventOperations.replayWindow, async ({ ctx, body, idempotencyKey }) =>
  toEventReplayResource(
    await replayEventWindow(
      ctx,
      {
        createdGte: body.created_gte,
        createdLt: body.created_lt,
        types: body.types,
        endpointId: body.endpoint,
        onlyUndelivered: body.only_undelivered,
        dryRun: body.dry_run,
        idempotencyKey,
      },
      { answerWithinMs: REPLAY_ANSWER_WITHIN_MS },
    ),
  ),
);

export { notFoundRoute as GET, notFoundRoute as PUT, notFoundRoute as PATCH, notFoundRoute as DELETE, notFoundRoute as OPTIONS };
