import { Inngest, eventType } from "inngest";
import { z } from "zod";
import type { QueuedDelivery } from "@/server/domain/webhooks";
import { env } from "@/server/env";
import { logFor } from "@/server/log";

// Configuration is passed explicitly so the SDK's settings come from server/env.ts too.
// INNGEST_DEV may be the dev server's URL, which then is where events go and functions are synced.
const dev = env().INNGEST_DEV;
export const inngest = new Inngest({
  id: "mari",
  eventKey: env().INNGEST_EVENT_KEY,
  signingKey: env().INNGEST_SIGNING_KEY,
  baseUrl: env().INNGEST_BASE_URL ?? (typeof dev === "string" ? dev : undefined),
  isDev: dev !== false,
  // The SDK's own lines (a run that failed, a sync) as JSON lines of the log, errors kept as every error is.
  logger: logFor("inngest"),
});

/** A payment now waits for its customer until `expires_at`. */
export const paymentCreated = eventType("payment/created", {
  schema: z.object({ payment_id: z.string(), expires_at: z.string() }),
});

/** A payment's outcome became unknown: reconcile it, and flag it after 24 h. */
export const paymentUnknown = eventType("payment/unknown", {
  schema: z.object({ payment_id: z.string(), unknown_since: z.string() }),
});

/** A refund is pending: submit it or ask the provider about it from `due_at` until it settles. */
export const refundCreated = eventType("refund/created", {
  schema: z.object({ refund_id: z.string(), due_at: z.string() }),
});

/** Events committed: fan their outbox rows out into webhook deliveries. */
export const eventsRecorded = eventType("webhook/events.recorded", {
  schema: z.object({ event_ids: z.array(z.string()) }),
});

/** A webhook delivery is due now: attempt it, then follow the retry schedule. `endpoint_id` shares out attempts per endpoint. */
export const deliveryScheduled = eventType("webhook/delivery.scheduled", {
  schema: z.object({ delivery_id: z.string(), endpoint_id: z.string() }),
});

/** A window replay was handed back (its lease ended at once): carry it on now. */
export const replayHandedBack = eventType("webhook/replay.handed-back", {
  schema: z.object({ replay_id: z.string() }),
});

/**
 * Events in one send: Inngest takes at most 5,000 events and 512 KB a request (256 KB on its free
 * tier) and refuses a larger send whole, without splitting it; a delivery's event is about 210
 * bytes, and one relay makes up to 500 events × every endpoint subscribed to them.
 */
export const SEND_CHUNK = 500;

/**
 * Sends `events` in chunks Inngest takes, in order: `send` is `inngest.send` or a step's
 * `sendEvent`, given `id` for the first chunk and `id-1`, `id-2`… for the next (a step id each).
 */
export async function sendInChunks<E>(events: readonly E[], id: string, send: (id: string, chunk: E[]) => Promise<unknown>): Promise<void> {
  for (let i = 0; i * SEND_CHUNK < events.length; i++) await send(i === 0 ? id : `${id}-${i}`, events.slice(i * SEND_CHUNK, (i + 1) * SEND_CHUNK));
}

/** The event that schedules `delivery`'s attempts; `id` deduplicates its sends. */
export function scheduleDelivery(delivery: QueuedDelivery, id: string = delivery.id) {
  return deliveryScheduled.create({ delivery_id: delivery.id, endpoint_id: delivery.endpointId }, { id });
}

/** A relay's deliveries, each scheduled (deliver-webhook runs), sent by a step in chunks (`send`: its sendEvent). */
export function scheduleDeliveries(deliveries: readonly QueuedDelivery[], send: (id: string, chunk: ReturnType<typeof scheduleDelivery>[]) => Promise<unknown>): Promise<void> {
  return sendInChunks(
    deliveries.map((d) => scheduleDelivery(d)),
    "schedule-deliveries",
    send,
  );
}

/** A test-mode settlement batch was made: pay it out at `pay_after`. */
export const settlementCreated = eventType("settlement/created", {
  schema: z.object({ settlement_id: z.string(), pay_after: z.string() }),
});
