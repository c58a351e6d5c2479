import { and, asc, eq, inArray } from "drizzle-orm";
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
    filters.endpointId ? eq(webhookDeliveries.endpointId, filters.endpointId) : undefined,
    filters.status ? eq(webhookDeliveries.status, filters.status) : undefined,
  );
  const q = keyset(webhookDeliveries.id, page, where, [webhookDeliveries.merchantId, webhookDeliveries.livemode]);
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
