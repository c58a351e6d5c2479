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
 * Writes an event and its outbox row. Call it inside the transaction that made the change, so
 * the event exists exactly when the change does: never for a rolled-back change, never missing.
 */
export async function recordEvent(tx: Db, e: NewEvent): Promise<EventRow> {
  const [row] = await tx
    .insert(events)
    .values({
      id: newId("event", e.at),
      merchantId: e.merchantId,
      livemode: e.livemode,
      type: e.type,
      objectId: e.objectId,
      data: { object: e.object, ...(e.previousAttributes ? { previous_attributes: e.previousAttributes } : {}) },
      createdAt: e.at,
    })
    .returning();
  await tx.insert(outbox).values({
    id: newId("outbox", e.at),
    topic: EVENT_CREATED_TOPIC,
    payload: { event_id: row!.id, type: e.type, merchant_id: e.merchantId, livemode: e.livemode },
    createdAt: e.at,
  });
  return row!;
}
