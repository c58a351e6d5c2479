import { boolean, index, json, jsonb, pgTable, text } from "drizzle-orm/pg-core";
import { EVENT_TYPES } from "@/server/domain/events";
import { createdAt, idColumn } from "./columns";
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
