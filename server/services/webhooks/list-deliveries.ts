import { and, asc, eq, inArray } from "drizzle-orm";
import { planPerValue } from "@/db/client";
import { literalIn } from "@/db/literal";
import { events, webhookAttempts, webhookDeliveries, type DeliveryStatus } from "@/db/schema";
import type { ServiceContext } from "@/server/context";
import type { DeliveryWithAttempts } from "@/server/schemas/webhooks";
import { keyset, withOwnedCursor, type Page, type PageRequest } from "../pagination";

/** `eventIds`: the deliveries of several events in one query (a payment's timeline); `ids`: those deliveries only. */
export type DeliveryFilters = { eventId?: string; eventIds?: string[]; ids?: string[]; endpointId?: string; status?: DeliveryStatus };

/**
 * Deliveries newest first, each with its attempts: two queries per page, whatever its size, read
 * from one snapshot (a read-only repeatable-read transaction). Read apart, an attempt recorded
 * between them would show beside a delivery still saying it had none, leased and pending.
 */
export async function listDeliveries(ctx: ServiceContext, filters: DeliveryFilters, page: PageRequest): Promise<Page<DeliveryWithAttempts>> {
  if (filters.eventIds?.length === 0) return { data: [], hasMore: false };
  return ctx.db.transaction((tx) => readDeliveries({ ...ctx, db: tx }, filters, page), { isolationLevel: "repeatable read", accessMode: "read only" });
}

async function readDeliveries(ctx: ServiceContext, filters: DeliveryFilters, page: PageRequest): Promise<Page<DeliveryWithAttempts>> {
  const where = and(
    eq(webhookDeliveries.merchantId, ctx.merchant.id),
    eq(webhookDeliveries.livemode, ctx.livemode),
    filters.eventId ? eq(webhookDeliveries.eventId, filters.eventId) : undefined,
    filters.eventIds ? inArray(webhookDeliveries.eventId, filters.eventIds) : undefined,
    filters.ids ? inArray(webhookDeliveries.id, filters.ids) : undefined,
    // Planned for its value: one endpoint may have most of the merchant's deliveries, another few.
    filters.endpointId ? planPerValue(eq(webhookDeliveries.endpointId, filters.endpointId)) : undefined,
    // Literal, so that a generic plan can use the partial indexes on failed and pending deliveries.
    filters.status ? literalIn(webhookDeliveries.status, filters.status) : undefined,
  );
  // One endpoint's or one event's deliveries ride its own index (endpoint_id or event_id, id),
  // which then serves the order too; ordered by the list index's columns, the page would walk every
  // delivery of the merchant to find an endpoint's few, or read and sort all of an endpoint's.
  const scope = filters.endpointId ? [webhookDeliveries.endpointId] : filters.eventId ? [webhookDeliveries.eventId] : [webhookDeliveries.merchantId, webhookDeliveries.livemode];
  const q = keyset(webhookDeliveries.id, page, where, scope);
  const own = { what: "webhook delivery", table: webhookDeliveries, id: webhookDeliveries.id, merchantId: webhookDeliveries.merchantId, livemode: webhookDeliveries.livemode };
  const rows = await withOwnedCursor(ctx, page, own, (owned) =>
    ctx.db
      .select({ delivery: webhookDeliveries, eventType: events.type })
      .from(webhookDeliveries)
      .innerJoin(events, eq(events.id, webhookDeliveries.eventId))
      .where(and(q.where, owned))
      .orderBy(...q.orderBy)
      .limit(q.limit),
  );
  const result = q.finish(rows);
  const ids = result.data.map((r) => r.delivery.id);
  const attempts = ids.length
    ? await ctx.db.select().from(webhookAttempts).where(inArray(webhookAttempts.deliveryId, ids)).orderBy(asc(webhookAttempts.id))
    : [];
  const byDelivery = new Map<string, typeof attempts>();
  for (const a of attempts) byDelivery.set(a.deliveryId, [...(byDelivery.get(a.deliveryId) ?? []), a]);
  return {
    hasMore: result.hasMore,
    data: result.data.map((r) => ({ ...r.delivery, eventType: r.eventType, attempts: byDelivery.get(r.delivery.id) ?? [] })),
  };
}
