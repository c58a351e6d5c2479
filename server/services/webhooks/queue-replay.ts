import { and, eq, inArray, isNull, sql } from "drizzle-orm";
import type { Db } from "@/db/client";
import { afterCommit, inTransaction, lockUntilCommit } from "@/db/transaction";
import { webhookDeliveries, webhookEndpoints, type WebhookEndpoint } from "@/db/schema";
import { invalidParam } from "@/server/domain/errors";
import { TEST_EVENT_TYPE, type EventType } from "@/server/domain/events";
import { newId } from "@/server/domain/ids";
import { CLOCK_SKEW_MS, DELIVERY_LEASE_MS, endpointWants, GIVE_UP_AFTER_MS } from "@/server/domain/webhooks";
import type { ServiceContext } from "@/server/context";
import { signalJobs } from "@/server/services/job-signals";
import { getEndpoint } from "./get-endpoint";

/**
 * The endpoints a replay goes to: the one named (which must be enabled; it gets the events whatever
 * it subscribes to, since the merchant asked for it by name), or every enabled endpoint.
 */
export async function replayTargets(ctx: ServiceContext, endpointId: string | undefined): Promise<{ named: boolean; endpoints: WebhookEndpoint[] }> {
  if (endpointId) return { named: true, endpoints: [await namedTarget(ctx, endpointId)] };
  const endpoints = await ctx.db
    .select()
    .from(webhookEndpoints)
    .where(
      and(
        eq(webhookEndpoints.merchantId, ctx.merchant.id),
        eq(webhookEndpoints.livemode, ctx.livemode),
        eq(webhookEndpoints.status, "enabled"),
        isNull(webhookEndpoints.deletedAt),
      ),
    );
  return { named: false, endpoints };
}

/** The endpoint a replay names: this merchant's, in this environment, and enabled. */
async function namedTarget(ctx: ServiceContext, endpointId: string, tx?: Db): Promise<WebhookEndpoint> {
  const endpoint = await getEndpoint(ctx, endpointId, { tx, param: "endpoint" });
  if (endpoint.status !== "enabled") throw invalidParam("endpoint", `Webhook endpoint '${endpointId}' is disabled. Enable it before replaying to it.`);
  return endpoint;
}

/**
 * The deliveries a replay makes. One event replayed to a named endpoint goes there whatever it
 * subscribes to, since the merchant picked that event for that endpoint. A window (named endpoint
 * or not) gives each endpoint only the types it subscribes to: a receiver written for
 * `payment.succeeded` alone must not meet `payment.failed` because an outage was replayed (one
 * that takes whatever arrives as a success would mark unpaid orders paid). A test ping is no
 * subscription's and is about one endpoint (its object): it goes back to that endpoint, and
 * elsewhere only when that one ping is replayed to an endpoint named for it, never with a window.
 */
export function replayPairs(
  targets: { named: boolean; endpoints: WebhookEndpoint[] },
  events: { id: string; type: EventType; objectId: string }[],
  of: "event" | "window",
): { eventId: string; endpointId: string }[] {
  const picked = targets.named && of === "event";
  const wants = (w: WebhookEndpoint, e: { type: EventType; objectId: string }) =>
    picked || (e.type === TEST_EVENT_TYPE ? e.objectId === w.id : endpointWants(w.enabledEvents, e.type));
  return events.flatMap((e) => targets.endpoints.filter((w) => wants(w, e)).map((w) => ({ eventId: e.id, endpointId: w.id })));
}

/**
 * The lock a merchant environment's replays take in turn, and its relays (fanOutEvents) share: a
 * replay and the relay of the same event would otherwise each find no delivery and each add one.
 */
export const replayLock = (merchantId: string, livemode: boolean) => `replay:${merchantId}:${livemode}`;

/** What a replay queued: every delivery that goes out within a minute, and how many of them were retries already pending. */
export type QueuedReplay = { ids: string[]; retries: number };

/**
 * Queues a replay's deliveries, due at once, and says which. A pair that already has a
 * pending delivery gets no second one, which would reach the endpoint twice: a retry scheduled
 * for later is brought forward to now instead, and one due within a lease's length (or being
 * attempted: a lease pushes its time that far) is left as it is. A retry brought forward keeps its
 * attempts and its 24 hours, and its schedule: should the brought-forward attempt fail, the
 * delivery goes back to the retry's time (`resume_at`, see sendDelivery). One whose 24 hours end
 * before it could be attempted (nothing ran while it fell due) would fail without sending, so the
 * pair gets a new delivery instead.
 *
 * Read under the replay's lock, which deleting or disabling an endpoint takes too: endpoints no
 * longer enabled get nothing (the `named` one is refused, as replayTargets refuses it), and with
 * `skipDelivered` a pair already delivered gets nothing, however recently its retry got through.
 */
export async function queueReplay(
  ctx: ServiceContext,
  pairs: { eventId: string; endpointId: string }[],
  opts: { named?: string; skipDelivered?: boolean } = {},
): Promise<QueuedReplay> {
  if (pairs.length === 0) return { ids: [], retries: 0 };
  // In the caller's transaction, if it has one (a window's batch commits with its replay's cursor).
  return inTransaction(ctx.db, async (tx) => {
    // One replay of a merchant's environment at a time: two at once (a double click) would each
    // find no pending delivery and each add one.
    await lockUntilCommit(tx, replayLock(ctx.merchant.id, ctx.livemode));
    const enabled = new Set(
      (
        await tx
          .select({ id: webhookEndpoints.id })
          .from(webhookEndpoints)
          .where(
            and(
              inArray(webhookEndpoints.id, [...new Set(pairs.map((p) => p.endpointId))]),
              eq(webhookEndpoints.status, "enabled"),
              isNull(webhookEndpoints.deletedAt),
            ),
          )
      ).map((w) => w.id),
    );
    if (opts.named && !enabled.has(opts.named)) await namedTarget(ctx, opts.named, tx);
    const existing = await tx
      .select({
        id: webhookDeliveries.id,
        eventId: webhookDeliveries.eventId,
        endpointId: webhookDeliveries.endpointId,
        status: webhookDeliveries.status,
        firstAttemptAt: webhookDeliveries.firstAttemptAt,
        nextAttemptAt: webhookDeliveries.nextAttemptAt,
      })
      .from(webhookDeliveries)
      .where(
        and(
          inArray(webhookDeliveries.eventId, [...new Set(pairs.map((p) => p.eventId))]),
          inArray(webhookDeliveries.endpointId, [...enabled]),
          inArray(webhookDeliveries.status, opts.skipDelivered ? ["pending", "delivered"] : ["pending"]),
        ),
      );
    const delivered = new Set(existing.filter((d) => d.status === "delivered").map((d) => `${d.eventId} ${d.endpointId}`));
    const wanted = pairs.filter((p) => enabled.has(p.endpointId) && !delivered.has(`${p.eventId} ${p.endpointId}`));
    const pending = existing.filter((d) => d.status === "pending");
    // Read after the rows: a lease among them was taken at or before this time (on another
    // instance's clock, up to CLOCK_SKEW_MS after it), so it ends within a lease and a skew of now.
    const now = ctx.clock.now();
    // An attempt made within a lease of now must still fall within 24 h of the first (sendDelivery).
    const sendable = pending.filter((d) => !d.firstAttemptAt || d.firstAttemptAt.getTime() + GIVE_UP_AFTER_MS >= now.getTime() + DELIVERY_LEASE_MS);
    const pendingFor = new Map(sendable.map((d) => [`${d.eventId} ${d.endpointId}`, d]));
    const waiting = wanted.flatMap((p) => pendingFor.get(`${p.eventId} ${p.endpointId}`) ?? []);
    const later = waiting.filter((d) => d.nextAttemptAt && d.nextAttemptAt.getTime() > now.getTime() + DELIVERY_LEASE_MS + CLOCK_SKEW_MS);
    if (later.length) {
      // Only while its time is still the one read: a worker that claims it meanwhile has leased it
      // (moved its time) and is sending it now; bringing it forward would send it again at once.
      const read = later.map((d) => ({ id: d.id, at: d.nextAttemptAt!.toISOString() }));
      await tx.execute(sql`
        update ${webhookDeliveries} d set next_attempt_at = ${now.toISOString()}::timestamptz, resume_at = d.next_attempt_at
        from jsonb_to_recordset(${JSON.stringify(read)}::jsonb) as v(id text, at timestamptz)
        where d.id = v.id and d.status = 'pending' and date_trunc('milliseconds', d.next_attempt_at) = v.at`);
    }
    const fresh = wanted.filter((p) => !pendingFor.has(`${p.eventId} ${p.endpointId}`));
    const inserted = fresh.length
      ? await tx
          .insert(webhookDeliveries)
          .values(
            fresh.map((p) => ({
              id: newId("webhookDelivery", now),
              merchantId: ctx.merchant.id,
              livemode: ctx.livemode,
              eventId: p.eventId,
              endpointId: p.endpointId,
              reason: "replay" as const,
              nextAttemptAt: now,
              createdAt: now,
            })),
          )
          .returning({ id: webhookDeliveries.id, endpointId: webhookDeliveries.endpointId })
      : [];
    const queued = [...waiting.map((d) => ({ id: d.id, endpointId: d.endpointId })), ...inserted];
    if (queued.length) afterCommit(tx, () => signalJobs({ type: "webhooks.queued", deliveries: queued, at: now }));
    return { ids: queued.map((d) => d.id), retries: waiting.length };
  });
}
