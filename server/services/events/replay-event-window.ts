import { and, asc, eq, gt, inArray } from "drizzle-orm";
import { events, webhookDeliveries } from "@/db/schema";
import type { EventType, ReplayProgress } from "@/server/domain/events";
import { invalidParam } from "@/server/domain/errors";
import type { ServiceContext } from "@/server/context";
import { queueReplay, replayPairs, replayTargets } from "../webhooks/queue-replay";
import { eventWindow } from "./list-events";

export type ReplayWindowInput = {
  createdGte: Date;
  createdLt?: Date;
  types?: EventType[];
  endpointId?: string;
  /** Skip an event for an endpoint that already has a delivered delivery of it. */
  onlyUndelivered?: boolean;
  dryRun?: boolean;
};

const BATCH = 500;

/**
 * Replays every event of a window (the after-an-outage case), oldest first, in batches of 500 so
 * a day of events neither holds one long transaction nor builds in memory. A dry run counts the
 * same way and writes nothing. Each batch commits on its own: a request cut off half-way has
 * queued a prefix of the window, and running it again with `only_undelivered` finishes the job.
 * `report` hears how far it has come: once its checks are passed (nothing yet), then after each batch.
 */
export async function replayEventWindow(
  ctx: ServiceContext,
  input: ReplayWindowInput,
  report: (progress: ReplayProgress) => void = () => {},
): Promise<ReplayProgress & { createdLt: Date }> {
  const targets = await replayTargets(ctx, input.endpointId);
  // Without an end, the window ends now; the answer says when, so that a count can be confirmed as counted.
  const createdLt = input.createdLt ?? ctx.clock.now();
  // A start in the future (a mistyped year) would count nothing and say nothing of why.
  if (input.createdLt === undefined && input.createdGte >= createdLt)
    throw invalidParam("created_gte", "created_gte is in the future: without created_lt the window ends now, so it would hold no event.");
  const where = eventWindow(ctx, { types: input.types, createdGte: input.createdGte, createdLt });
  let after: string | undefined;
  let eventCount = 0;
  let deliveryCount = 0;
  report({ events: 0, deliveries: 0 });
  for (;;) {
    const batch = await ctx.db
      .select({ id: events.id, type: events.type, objectId: events.objectId })
      .from(events)
      .where(after ? and(where, gt(events.id, after)) : where)
      .orderBy(asc(events.merchantId), asc(events.livemode), asc(events.id))
      .limit(BATCH);
    if (batch.length === 0) break;
    after = batch[batch.length - 1]!.id;
    eventCount += batch.length;

    let pairs = replayPairs(targets, batch, "window");
    if (input.dryRun) {
      if (input.onlyUndelivered && pairs.length) {
        const done = await ctx.db
          .select({ eventId: webhookDeliveries.eventId, endpointId: webhookDeliveries.endpointId })
          .from(webhookDeliveries)
          .where(and(inArray(webhookDeliveries.eventId, batch.map((e) => e.id)), eq(webhookDeliveries.status, "delivered")));
        const delivered = new Set(done.map((d) => `${d.eventId} ${d.endpointId}`));
        pairs = pairs.filter((p) => !delivered.has(`${p.eventId} ${p.endpointId}`));
      }
      deliveryCount += pairs.length;
    } else {
      // What is delivered is read under the replay's lock: a retry that gets through while this
      // waits its turn is not sent again.
      deliveryCount += (await queueReplay(ctx, pairs, { named: input.endpointId, skipDelivered: input.onlyUndelivered })).ids.length;
    }
    report({ events: eventCount, deliveries: deliveryCount });
    if (batch.length < BATCH) break;
  }
  return { events: eventCount, deliveries: deliveryCount, createdLt };
}
