import { z } from "zod";
import { EVENT_TYPES, type ReplayProgress } from "@/server/domain/events";
import { timeBound } from "@/server/schemas/common";
import { toEventResource } from "@/server/schemas/events";
import { toDeliveryResource } from "@/server/schemas/webhooks";
import { getEvent } from "@/server/services/events/get-event";
import { listEvents } from "@/server/services/events/list-events";
import { listEventReplays } from "@/server/services/events/list-event-replays";
import { replayEventWindow } from "@/server/services/events/replay-event-window";
import { replayEvent } from "@/server/services/events/replay-event";
import { listDeliveries } from "@/server/services/webhooks/list-deliveries";
import { developerProcedure, objectId, pageInput, router, viewerProcedure } from "../init";
import { progressStream } from "../progress-stream";

/** As /v1 takes a time: RFC 3339 (or Unix seconds), no later than the year 9999. */
const time = timeBound;
const types = z.array(z.enum(EVENT_TYPES)).min(1).max(EVENT_TYPES.length).optional();

/** Window replays the events page shows: the latest, of the last day. */
const REPLAYS_SHOWN = 5;
const REPLAYS_SINCE_MS = 24 * 3600_000;

/** An event's deliveries shown on its page; more than this is a replay storm, and the page says so. */
const DELIVERIES_SHOWN = 100;

export const eventsRouter = router({
  /** The event log: newest first, by type and time, keyset pages (as GET /v1/events). */
  list: viewerProcedure
    .input(
      z.object({
        ...pageInput,
        types,
        createdGte: time.optional(),
        createdLt: time.optional(),
      }),
    )
    .query(async ({ ctx, input }) => {
      const page = await listEvents(
        ctx.service,
        { types: input.types, createdGte: input.createdGte, createdLt: input.createdLt },
        { limit: input.limit, startingAfter: input.startingAfter, endingBefore: input.endingBefore },
      );
      return { data: page.data.map(toEventResource), hasMore: page.hasMore };
    }),

  /** One event with its payload and its deliveries (newest first), each with its attempts. */
  get: viewerProcedure.input(z.object({ id: objectId })).query(async ({ ctx, input }) => {
    const event = await getEvent(ctx.service, input.id);
    const deliveries = await listDeliveries(ctx.service, { eventId: event.id }, { limit: DELIVERIES_SHOWN });
    return { event: toEventResource(event), deliveries: deliveries.data.map(toDeliveryResource), moreDeliveries: deliveries.hasMore };
  }),

  /** Queue the event again to every enabled endpoint subscribed to it, or to the one named; `retries`: how many of those deliveries were retries already pending, sent now instead. */
  replay: developerProcedure.input(z.object({ id: objectId, endpointId: objectId.optional() })).mutation(async ({ ctx, input }) => {
    const { deliveries, retries } = await replayEvent(ctx.service, input.id, input.endpointId);
    return { deliveries: deliveries.map(toDeliveryResource), retries };
  }),

  /**
   * The latest window replays of the last day (the API's and the dashboard's), newest first: how far each has
   * come, and whether it is still being queued (a replay whose process died is carried on by the
   * job runner), done, or stopped and why.
   */
  replays: viewerProcedure.query(async ({ ctx }) =>
    (await listEventReplays(ctx.service, { since: new Date(ctx.service.clock.now().getTime() - REPLAYS_SINCE_MS) }, { limit: REPLAYS_SHOWN })).data.map((r) => ({
      id: r.id,
      createdAt: r.createdAt.toISOString(),
      createdGte: r.createdGte.toISOString(),
      createdLt: r.createdLt.toISOString(),
      types: r.types,
      endpointId: r.endpointId,
      onlyUndelivered: r.onlyUndelivered,
      events: r.events,
      deliveries: r.deliveries,
      status: r.status,
      error: r.error?.message ?? null,
      finishedAt: r.finishedAt?.toISOString() ?? null,
    })),
  ),

  /**
   * Replay a time window; `dryRun` counts what would be queued and writes nothing. Streamed
   * (STREAMED_PROCEDURES): how many events it has walked so far, then what it queued.
   */
  replayWindow: developerProcedure
    .input(
      z
        .object({
          createdGte: time,
          createdLt: time.optional(),
          types,
          endpointId: objectId.optional(),
          onlyUndelivered: z.boolean().default(false),
          dryRun: z.boolean(),
        })
        .refine((b) => b.createdLt === undefined || b.createdLt > b.createdGte, { message: "The end must be after the start.", path: ["createdLt"] }),
    )
    .mutation(({ ctx, input, path }) =>
      progressStream(path, async (report: (progress: ReplayProgress) => void) => {
        const { events, deliveries, createdLt } = await replayEventWindow(
          ctx.service,
          {
            createdGte: input.createdGte,
            createdLt: input.createdLt,
            types: input.types,
            endpointId: input.endpointId,
            onlyUndelivered: input.onlyUndelivered,
            dryRun: input.dryRun,
          },
          { report },
        );
        return { dryRun: input.dryRun, events, deliveries, createdLt: createdLt.toISOString() };
      }),
    ),
});
