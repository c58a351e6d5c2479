import type { ServiceContext } from "@/server/context";
import type { DeliveryWithAttempts } from "@/server/schemas/webhooks";
import { signalJobs } from "@/server/services/job-signals";
import { insertReplayDeliveries, replayPairs, replayTargets } from "../webhooks/queue-replay";
import { getEvent } from "./get-event";

/** Queues one event again to every enabled endpoint subscribed to it (a test ping: to its endpoint), or to the one named. */
export async function replayEvent(ctx: ServiceContext, eventId: string, endpointId?: string): Promise<DeliveryWithAttempts[]> {
  const event = await getEvent(ctx, eventId);
  const targets = await replayTargets(ctx, endpointId);
  const rows = await insertReplayDeliveries(ctx, replayPairs(targets, [event], "event"));
  if (rows.length) signalJobs({ type: "webhooks.queued", deliveryIds: rows.map((r) => r.id) });
  return rows.map((r) => ({ ...r, eventType: event.type, attempts: [] }));
}
