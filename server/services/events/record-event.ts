import { events, outbox, type EventRow } from "@/db/schema";
import type { Db } from "@/db/client";
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

/**
 * Writes events and their outbox rows, two statements however many, in the order given, sent
 * together (pipelined: one round trip). Call it inside the transaction that made the change, so
 * each event exists exactly when its change does: never for a rolled-back change, never missing.
 */
export async function recordEvents(tx: Db, list: NewEvent[]): Promise<EventRow[]> {
  if (list.length === 0) return [];
  const values = list.map((e) => ({
    id: newId("event", e.at),
    merchantId: e.merchantId,
    livemode: e.livemode,
    type: e.type,
    objectId: e.objectId,
    data: { object: e.object, ...(e.previousAttributes ? { previous_attributes: e.previousAttributes } : {}) },
    createdAt: e.at,
  }));
  const [rows] = await Promise.all([
    tx.insert(events).values(values).returning(),
    tx.insert(outbox).values(
      values.map((e) => ({
        id: newId("outbox", e.createdAt),
        topic: EVENT_CREATED_TOPIC,
        payload: { event_id: e.id, type: e.type, merchant_id: e.merchantId, livemode: e.livemode },
        createdAt: e.createdAt,
      })),
    ),
  ]);
  const byId = new Map(rows.map((r) => [r.objectId, r]));
  return list.map((e) => byId.get(e.objectId)!);
}
