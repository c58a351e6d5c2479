import { MAX_ENDPOINTS } from "@/server/domain/webhooks";
import type { ServiceContext } from "@/server/context";
import type { DeliveryWithAttempts } from "@/server/schemas/webhooks";
import { listDeliveries } from "../webhooks/list-deliveries";
import { queueReplay, replayPairs, replayTargets } from "../webhooks/queue-replay";
import { getEvent } from "./get-event";

/**
 * Queues one event again to every enabled endpoint subscribed to it (a test ping: to its endpoint),
 * or to the one named; an endpoint with a retry of it pending gets that retry now (queueReplay).
 * Returns those deliveries, newest first, and how many of them were such retries.
 */
export async function replayEvent(ctx: ServiceContext, eventId: string, endpointId?: string): Promise<{ deliveries: DeliveryWithAttempts[]; retries: number }> {
  const event = await getEvent(ctx, eventId);
  const targets = await replayTargets(ctx, endpointId);
  const { ids, retries } = await queueReplay(ctx, replayPairs(targets, [event], "event"), { named: endpointId });
  if (ids.length === 0) return { deliveries: [], retries };
  return { deliveries: (await listDeliveries(ctx, { eventId: event.id, ids }, { limit: MAX_ENDPOINTS })).data, retries };
}
