import { events, outbox, type EventRow } from "@/db/schema";
import type { Db } from "@/db/client";
import { placeholders, preparedOnce } from "@/db/prepared-once";
import type { EventType } from "@/server/domain/events";
import { newId } from "@/server/domain/ids";

/** The outbox topic of a committed event; the webhook fan-out consumes it. */
export const EVENT_CREATED_TOPIC = "event/created";

export type NewEvent = {
  merchantId: string;
  livemode: boolean;
  type: EventType;
  objectId: string;
  object: Record<string, unknown>;
  previousAttributes?: Record<string, unknown>;
  at: Date;
};

type EventValues = Omit<typeof events.$inferInsert, "id"> & { id: string; createdAt: Date };
type OutboxValues = typeof outbox.$inferInsert;

/** The single-event case, the common one (a payment moved), as prepared statements. */
const insertOne = {
  event: preparedOnce((db: Db) =>
    db
      .insert(events)
      .values(placeholders(["id", "merchantId", "livemode", "type", "objectId", "data", "createdAt"]))
      .returning()
      .prepare("events_insert_one"),
  ),
  outbox: preparedOnce((db: Db) => db.insert(outbox).values(placeholders(["id", "topic", "payload", "createdAt"])).prepare("outbox_insert_one")),
};

/**
 * Writes events and their outbox rows, two statements however many, in the order given, sent
 * together (pipelined: one round trip). Call it inside the transaction that made the change, so
 * each event exists exactly when its change does: never for a rolled-back change, never missing.
 */
export async function recordEvents(tx: Db, list: NewEvent[]): Promise<EventRow[]> {
  if (list.length === 0) return [];
  const values: EventValues[] = list.map((e) => ({
    id: newId("event", e.at),
    merchantId: e.merchantId,
    livemode: e.livemode,
    type: e.type,
    objectId: e.objectId,
    data: { object: e.object, ...(e.previousAttributes ? { previous_attributes: e.previousAttributes } : {}) },
    createdAt: e.at,
  }));
  const queued: OutboxValues[] = values.map((e) => ({
    id: newId("outbox", e.createdAt),
    topic: EVENT_CREATED_TOPIC,
    payload: { event_id: e.id, type: e.type, merchant_id: e.merchantId, livemode: e.livemode },
    createdAt: e.createdAt,
  }));
  const [rows] =
    values.length === 1
      ? await Promise.all([
          insertOne.event(tx).execute(values[0]) as Promise<EventRow[]>,
          insertOne.outbox(tx).execute(queued[0]),
        ])
      : await Promise.all([tx.insert(events).values(values).returning(), tx.insert(outbox).values(queued)]);
  const byId = new Map(rows.map((r) => [r.objectId, r]));
  return list.map((e) => byId.get(e.objectId)!);
}
