import { and, eq, inArray, isNull, sql } from "drizzle-orm";
import { outbox, webhookDeliveries, webhookEndpoints } from "@/db/schema";
import type { BaseContext } from "@/server/context";
import type { EventType } from "@/server/domain/events";
import { newId } from "@/server/domain/ids";
import { endpointWants, type QueuedDelivery } from "@/server/domain/webhooks";
import { rowsOf } from "@/db/rows";
import { lockUntilCommit } from "@/db/transaction";
import { EVENT_CREATED_TOPIC } from "../events/record-event";
import { replayLock } from "./queue-replay";

type OutboxEvent = { event_id: string; type: EventType; merchant_id: string; livemode: boolean };

/**
 * Relays committed events to webhooks: takes up to `limit` outbox rows (SKIP LOCKED, so workers
 * share the queue), creates one delivery per enabled endpoint of the same merchant and
 * environment subscribed to the type, and deletes the rows, in one transaction. A crash anywhere
 * leaves the rows for the next pass; nothing is fanned out twice. An event replayed before its
 * relay (a merchant replaying an outage of the relay itself) already has its delivery to an
 * endpoint: the replay's lock, held shared here, orders the two, and the relay adds none beside
 * it. Returns the deliveries made.
 */
export async function fanOutEvents(
  ctx: BaseContext,
  opts: { limit?: number; merchantId?: string } = {},
): Promise<{ events: number; deliveries: QueuedDelivery[] }> {
  const limit = opts.limit ?? 500;
  return ctx.db.transaction(async (tx) => {
    const scope = opts.merchantId ? sql`and payload->>'merchant_id' = ${opts.merchantId}` : sql``;
    const taken = rowsOf<{ payload: OutboxEvent }>(
      await tx.execute(sql`
        delete from ${outbox} where id in (
          select id from ${outbox} where topic = ${EVENT_CREATED_TOPIC} ${scope}
          order by created_at limit ${limit} for update skip locked
        ) returning payload`),
    ).map((r) => r.payload);
    if (taken.length === 0) return { events: 0, deliveries: [] };

    const endpoints = await tx
      .select({ id: webhookEndpoints.id, merchantId: webhookEndpoints.merchantId, livemode: webhookEndpoints.livemode, enabledEvents: webhookEndpoints.enabledEvents })
      .from(webhookEndpoints)
      .where(
        and(
          inArray(webhookEndpoints.merchantId, [...new Set(taken.map((e) => e.merchant_id))]),
          eq(webhookEndpoints.status, "enabled"),
          isNull(webhookEndpoints.deletedAt),
        ),
      );
    // In one order, so that relays waiting on each other's replays never wait in a circle.
    const environments = [...new Set(taken.map((e) => replayLock(e.merchant_id, e.livemode)))].sort();
    for (const lock of environments) await lockUntilCommit(tx, lock, { shared: true });
    const replayed = new Set(
      (
        await tx
          .select({ eventId: webhookDeliveries.eventId, endpointId: webhookDeliveries.endpointId })
          .from(webhookDeliveries)
          .where(inArray(webhookDeliveries.eventId, taken.map((e) => e.event_id)))
      ).map((d) => `${d.eventId} ${d.endpointId}`),
    );
    const now = ctx.clock.now();
    const rows = taken.flatMap((e) =>
      endpoints
        .filter((w) => w.merchantId === e.merchant_id && w.livemode === e.livemode && endpointWants(w.enabledEvents, e.type))
        .filter((w) => !replayed.has(`${e.event_id} ${w.id}`))
        .map((w) => ({
          id: newId("webhookDelivery", now),
          merchantId: e.merchant_id,
          livemode: e.livemode,
          eventId: e.event_id,
          endpointId: w.id,
          reason: "event" as const,
          nextAttemptAt: now,
          createdAt: now,
        })),
    );
    if (rows.length) await tx.insert(webhookDeliveries).values(rows);
    return { events: taken.length, deliveries: rows.map((r) => ({ id: r.id, endpointId: r.endpointId })) };
  });
}
