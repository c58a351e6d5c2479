import { and, eq, isNull } from "drizzle-orm";
import { webhookDeliveries, webhookEndpoints, type WebhookEndpoint } from "@/db/schema";
import { invalidParam } from "@/server/domain/errors";
import { TEST_EVENT_TYPE, type EventType } from "@/server/domain/events";
import { newId } from "@/server/domain/ids";
import { endpointWants } from "@/server/domain/webhooks";
import type { ServiceContext } from "@/server/context";
import { getEndpoint } from "./get-endpoint";

/**
 * The endpoints a replay goes to: the one named (which must be enabled; it gets the events whatever
 * it subscribes to, since the merchant asked for it by name), or every enabled endpoint.
 */
export async function replayTargets(ctx: ServiceContext, endpointId: string | undefined): Promise<{ named: boolean; endpoints: WebhookEndpoint[] }> {
  if (endpointId) {
    const endpoint = await getEndpoint(ctx, endpointId, { param: "endpoint" });
    if (endpoint.status !== "enabled") throw invalidParam("endpoint", `Webhook endpoint '${endpointId}' is disabled. Enable it before replaying to it.`);
    return { named: true, endpoints: [endpoint] };
  }
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

/**
 * The deliveries a replay makes. A named endpoint gets every event, since the merchant asked for
 * it by name; otherwise each endpoint gets what it subscribes to. A test ping is no subscription's
 * and is about one endpoint (its object): it goes back to that endpoint, and elsewhere only when
 * that one ping is replayed to an endpoint named for it (`of: "event"`), never with a window.
 */
export function replayPairs(
  targets: { named: boolean; endpoints: WebhookEndpoint[] },
  events: { id: string; type: EventType; objectId: string }[],
  of: "event" | "window",
): { eventId: string; endpointId: string }[] {
  const wants = (w: WebhookEndpoint, e: { type: EventType; objectId: string }) =>
    e.type === TEST_EVENT_TYPE ? e.objectId === w.id || (targets.named && of === "event") : targets.named || endpointWants(w.enabledEvents, e.type);
  return events.flatMap((e) => targets.endpoints.filter((w) => wants(w, e)).map((w) => ({ eventId: e.id, endpointId: w.id })));
}

/** Inserts replay deliveries, due at once. */
export async function insertReplayDeliveries(ctx: ServiceContext, pairs: { eventId: string; endpointId: string }[]) {
  if (pairs.length === 0) return [];
  const now = ctx.clock.now();
  return ctx.db
    .insert(webhookDeliveries)
    .values(
      pairs.map((p) => ({
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
    .returning();
}
