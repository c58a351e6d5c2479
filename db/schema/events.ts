import { sql } from "drizzle-orm";
import { boolean, index, integer, json, jsonb, pgTable, text } from "drizzle-orm/pg-core";
import { EVENT_TYPES, type EventType } from "@/server/domain/events";
import { createdAt, idColumn, tstz } from "./columns";
import { merchants } from "./merchants";

/** The event log (spec §6): written in the same transaction as the change it records. */
export const events = pgTable(
  "events",
  {
    id: idColumn("id").primaryKey(),
    merchantId: idColumn("merchant_id")
      .notNull()
      .references(() => merchants.id),
    livemode: boolean("livemode").notNull(),
    type: text("type", { enum: EVENT_TYPES }).notNull(),
    /**
     * `{ object, previous_attributes? }`: the resource as the API shows it at that moment. `json`,
     * not `jsonb`: kept as written, so webhooks list fields in the API's order (id, object, …).
     */
    data: json("data").$type<{ object: Record<string, unknown>; previous_attributes?: Record<string, unknown> }>().notNull(),
    /** The object the event is about (pay_…, re_…), for timelines. */
    objectId: idColumn("object_id").notNull(),
    createdAt: createdAt(),
  },
  (t) => [
    // GET /v1/events: newest first, keyset on id, created[] bounds as id bounds.
    index("events_list_idx").on(t.merchantId, t.livemode, t.id),
    // GET /v1/events?type=…
    index("events_type_list_idx").on(t.merchantId, t.livemode, t.type, t.id),
    // A payment's timeline.
    index("events_object_idx").on(t.objectId, t.id),
  ],
);

export type EventRow = typeof events.$inferSelect;

/**
 * Work that must happen because a transaction committed: today, the webhook fan-out of each event.
 * Written in that transaction; the relay (fanOutEvents) deletes each row in the transaction that
 * acts on it, so a row exists exactly while its work is pending.
 */
export const outbox = pgTable(
  "outbox",
  {
    id: idColumn("id").primaryKey(),
    topic: text("topic").notNull(),
    payload: jsonb("payload").$type<Record<string, unknown>>().notNull(),
    createdAt: createdAt(),
  },
  // The relay reads the oldest first.
  (t) => [index("outbox_created_idx").on(t.createdAt)],
);

export const REPLAY_STATUSES = ["running", "done", "stopped"] as const;

/**
 * A window's replay (POST /v1/events/replay, and the dashboard's), kept while it runs so that
 * nothing is lost when the process running it dies: the window's events are queued oldest first,
 * 500 at a time, and each batch commits with `after_event_id` moved past it. Whoever runs a batch
 * holds the row's lease (`lease_until`, renewed by every batch); a replay whose lease ran out is
 * claimed by a job runner and goes on from its cursor, so each event is queued once.
 */
export const eventReplays = pgTable(
  "event_replays",
  {
    id: idColumn("id").primaryKey(),
    merchantId: idColumn("merchant_id")
      .notNull()
      .references(() => merchants.id),
    livemode: boolean("livemode").notNull(),
    createdGte: tstz("created_gte").notNull(),
    createdLt: tstz("created_lt").notNull(),
    /** The event types asked for; null for all. */
    types: jsonb("types").$type<EventType[]>(),
    /** The endpoint named, if one was. */
    endpointId: idColumn("endpoint_id"),
    onlyUndelivered: boolean("only_undelivered").notNull(),
    /** The request's Idempotency-Key: its retry after a crash picks this replay up instead of starting another. */
    idempotencyKey: text("idempotency_key"),
    /** The last event queued: the next batch starts after it. */
    afterEventId: idColumn("after_event_id"),
    events: integer("events").notNull().default(0),
    deliveries: integer("deliveries").notNull().default(0),
    /** `stopped`: it could not go on (the endpoint it names was disabled or deleted); `error` says why. */
    status: text("status", { enum: REPLAY_STATUSES }).notNull().default("running"),
    error: jsonb("error").$type<{ code: string; message: string; param?: string }>(),
    /** While running: when its runner is presumed dead, unless a batch renews it first. */
    leaseUntil: tstz("lease_until"),
    createdAt: createdAt(),
    finishedAt: tstz("finished_at"),
  },
  (t) => [
    // The dashboard's recent replays, newest first.
    index("event_replays_list_idx").on(t.merchantId, t.livemode, t.id),
    // Replays to resume: the runners' claim and their next-due read.
    index("event_replays_running_idx").on(t.leaseUntil).where(sql`${t.status} = 'running'`),
    index("event_replays_key_idx").on(t.merchantId, t.livemode, t.idempotencyKey).where(sql`${t.idempotencyKey} is not null`),
  ],
);

export type EventReplay = typeof eventReplays.$inferSelect;
/** What a dry run counted, shaped as the replay it would start; never kept, so without an id. */
export type CountedReplay = Omit<EventReplay, "id"> & { id: null };
