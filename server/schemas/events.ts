import { z } from "zod";
import { REPLAY_STATUSES, type CountedReplay, type EventReplay, type EventRow } from "@/db/schema";
import { EVENT_TYPES } from "@/server/domain/events";
import { defineOperation, idParam, limitParam, listEnvelope, oneCursor, timeBound, timestamp, windowOrder } from "./common";
import { webhookDeliveryResource } from "./webhooks";

export const eventResource = z.object({
  id: z.string().describe("Starts with evt_."),
  object: z.literal("event"),
  type: z.enum(EVENT_TYPES),
  created_at: timestamp,
  livemode: z.boolean(),
  data: z.object({
    object: z.record(z.string(), z.unknown()).describe("The resource as it was when the event happened, with its metadata."),
    previous_attributes: z.record(z.string(), z.unknown()).optional(),
  }),
});
export type EventResource = z.infer<typeof eventResource>;

/** The event as the API and every webhook show it; a delivery's body is this, serialised. */
export function toEventResource(e: Pick<EventRow, "id" | "type" | "createdAt" | "livemode" | "data">): EventResource {
  return { id: e.id, object: "event", type: e.type, created_at: e.createdAt.toISOString(), livemode: e.livemode, data: e.data };
}

const eventId = idParam("event", "an event id");
const endpointId = idParam("webhookEndpoint", "a webhook endpoint id");
const typeList = `one of ${EVENT_TYPES.join(", ")}`;
const eventType = z.enum(EVENT_TYPES, { error: `must be ${typeList}` });
/** One or more event types, each at most once. */
const eventTypes = z
  .array(eventType, { error: "must be a list of event types" })
  .min(1, "must name at least one event type")
  .max(EVENT_TYPES.length, `must name at most ${EVENT_TYPES.length} event types`);

/** `type=a`, `type=a,b` or `type=a&type=b`. */
const typesParam = z
  .union([z.string(), z.array(z.string())])
  .transform((v) => (Array.isArray(v) ? v : [v]).flatMap((s) => s.split(",")).map((s) => s.trim()))
  .pipe(eventTypes)
  .describe(`One or several event types, comma-separated or repeated: ${EVENT_TYPES.join(", ")}.`);

export const listEventsQuery = z
  .strictObject({
    limit: limitParam,
    starting_after: eventId.optional().describe("An event id: return the page after it (older)."),
    ending_before: eventId.optional().describe("An event id: return the page before it (newer)."),
    type: typesParam.optional(),
    "created[gte]": timeBound.optional(),
    "created[lt]": timeBound.optional(),
  })
  .refine(...oneCursor)
  .refine(...windowOrder("created[gte]", "created[lt]"));

export const replayEventBody = z.strictObject({
  endpoint: endpointId.optional().describe("Only this endpoint, whatever it subscribes to; by default every enabled endpoint subscribed to the event."),
});

const isoOrUnix = timeBound.describe("RFC 3339 timestamp or Unix seconds.");

export const replayWindowBody = z
  .strictObject({
    created_gte: isoOrUnix,
    created_lt: isoOrUnix.optional().describe("Defaults to now."),
    types: eventTypes.optional(),
    endpoint: endpointId.optional().describe("Only this endpoint; it still gets only the types it subscribes to."),
    only_undelivered: z.boolean({ error: "only_undelivered must be a boolean" }).optional().describe("Skip events an endpoint already received."),
    dry_run: z.boolean({ error: "dry_run must be a boolean" }).optional().describe("Count what would be queued, queue nothing."),
  })
  .refine(...windowOrder("created_gte", "created_lt"));

export const eventReplayResource = z.object({
  id: z.string().nullable().describe("Starts with evr_. Null on a dry run, which keeps nothing."),
  object: z.literal("event_replay"),
  livemode: z.boolean(),
  dry_run: z.boolean(),
  status: z
    .enum(REPLAY_STATUSES)
    .describe(
      "`running`: still being queued (a window that takes longer than a few seconds is answered `running` and carried on by the server; follow it with GET /v1/event_replays/{id}). `done`: every event of the window was gone through. `stopped`: it could not go on; `error` says why.",
    ),
  created_gte: timestamp.describe("Where the window began."),
  created_lt: timestamp.describe("Where the window ended: `created_lt` as sent, or when the request was answered. Send it back to queue exactly what a dry run counted."),
  types: z.array(z.enum(EVENT_TYPES)).nullable().describe("The event types asked for; null for all."),
  endpoint: z.string().nullable().describe("The endpoint named, if one was."),
  only_undelivered: z.boolean(),
  events: z.number().int().describe("Events in the window that matched (so far, while `running`)."),
  deliveries: z
    .number()
    .int()
    .describe("Deliveries queued (so far, while `running`; on a dry run, that would be): one per event and endpoint subscribed to it, less those already delivered with only_undelivered."),
  error: z
    .object({ code: z.string(), message: z.string(), param: z.string().optional() })
    .nullable()
    .describe("Why a `stopped` replay could not go on (the endpoint it names was disabled or deleted), as the error envelope would say it."),
  created_at: timestamp,
  finished_at: timestamp.nullable().describe("When it was `done` or `stopped`."),
});
export type EventReplayResource = z.infer<typeof eventReplayResource>;

/** A window replay (or a dry run's count, which has no id), as the API shows it. */
export function toEventReplayResource(r: EventReplay | CountedReplay): EventReplayResource {
  return {
    id: r.id,
    object: "event_replay",
    livemode: r.livemode,
    dry_run: r.id === null,
    status: r.status,
    created_gte: r.createdGte.toISOString(),
    created_lt: r.createdLt.toISOString(),
    types: r.types,
    endpoint: r.endpointId,
    only_undelivered: r.onlyUndelivered,
    events: r.events,
    deliveries: r.deliveries,
    error: r.error,
    created_at: r.createdAt.toISOString(),
    finished_at: r.finishedAt?.toISOString() ?? null,
  };
}

const replayId = idParam("eventReplay", "an event replay id");

export const listEventReplaysQuery = z
  .strictObject({
    limit: limitParam,
    starting_after: replayId.optional().describe("An event replay id: return the page after it (older)."),
    ending_before: replayId.optional().describe("An event replay id: return the page before it (newer)."),
  })
  .refine(...oneCursor);

export const eventOperations = {
  list: defineOperation({
    operationId: "listEvents",
    method: "GET",
    path: "/v1/events",
    summary: "List events, newest first. Events are kept; nothing expires.",
    tag: "Events",
    scope: "events:read",
    query: listEventsQuery,
    idempotency: "none",
    status: 200,
    response: listEnvelope(eventResource),
  }),
  retrieve: defineOperation({
    operationId: "retrieveEvent",
    method: "GET",
    path: "/v1/events/{id}",
    summary: "Retrieve an event.",
    tag: "Events",
    scope: "events:read",
    idempotency: "none",
    status: 200,
    response: eventResource,
    pathParams: { id: { description: "The event's id (evt_…).", id: "event" } },
  }),
  replay: defineOperation({
    operationId: "replayEvent",
    method: "POST",
    path: "/v1/events/{id}/replay",
    summary: "Queue the event again to every enabled endpoint subscribed to it, or to the one named.",
    tag: "Events",
    scope: "events:replay",
    body: replayEventBody,
    idempotency: "optional",
    status: 200,
    response: listEnvelope(webhookDeliveryResource),
    pathParams: { id: { description: "The event's id (evt_…).", id: "event" } },
  }),
  replayWindow: defineOperation({
    operationId: "replayEvents",
    method: "POST",
    path: "/v1/events/replay",
    summary:
      "Replay every event of a time window (after an outage); dry_run counts first. Answered `done` when the window is queued within a few seconds; a longer one is answered `running` and carried on by the server (GET /v1/event_replays/{id}).",
    tag: "Events",
    scope: "events:replay",
    body: replayWindowBody,
    idempotency: "optional",
    notFound: true,
    status: 200,
    response: eventReplayResource,
  }),
  listReplays: defineOperation({
    operationId: "listEventReplays",
    method: "GET",
    path: "/v1/event_replays",
    summary: "List window replays (the API's and the dashboard's), newest first, with how far each has come.",
    tag: "Events",
    scope: "events:read",
    query: listEventReplaysQuery,
    idempotency: "none",
    status: 200,
    response: listEnvelope(eventReplayResource),
  }),
  retrieveReplay: defineOperation({
    operationId: "retrieveEventReplay",
    method: "GET",
    path: "/v1/event_replays/{id}",
    summary: "Retrieve a window replay: follow one answered `running` to its end.",
    tag: "Events",
    scope: "events:read",
    idempotency: "none",
    status: 200,
    response: eventReplayResource,
    pathParams: { id: { description: "The replay's id (evr_…).", id: "eventReplay" } },
  }),
};

