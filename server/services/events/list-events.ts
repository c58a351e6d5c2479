import { and, eq, gte, inArray, lt, type SQL } from "drizzle-orm";
import { events, type EventRow } from "@/db/schema";
import type { EventType } from "@/server/domain/events";
import { idLowerBound } from "@/server/domain/ids";
import type { ServiceContext } from "@/server/context";
import { keyset, type Page, type PageRequest } from "../pagination";

export type EventFilters = { types?: EventType[]; createdGte?: Date; createdLt?: Date };

/** The conditions of an event window, shared by the list and the replay of a window. */
export function eventWindow(ctx: ServiceContext, f: EventFilters): SQL {
  return and(
    eq(events.merchantId, ctx.merchant.id),
    eq(events.livemode, ctx.livemode),
    f.types && (f.types.length === 1 ? eq(events.type, f.types[0]!) : inArray(events.type, f.types)),
    // Ids sort by creation time, so time bounds are id bounds and ride the list index.
    f.createdGte && gte(events.id, idLowerBound("event", f.createdGte)),
    f.createdLt && lt(events.id, idLowerBound("event", f.createdLt)),
  )!;
}

/** `objectIds` narrows to the events about those objects (a payment's timeline: it and its refunds). */
export async function listEvents(ctx: ServiceContext, filters: EventFilters & { objectIds?: string[] }, page: PageRequest): Promise<Page<EventRow>> {
  if (filters.objectIds?.length === 0) return { data: [], hasMore: false };
  // One type rides events_type_list_idx, which then serves the order too.
  const scope = filters.types?.length === 1 ? [events.merchantId, events.livemode, events.type] : [events.merchantId, events.livemode];
  const where = filters.objectIds ? and(eventWindow(ctx, filters), inArray(events.objectId, filters.objectIds)) : eventWindow(ctx, filters);
  const q = keyset(events.id, page, where, scope);
  return q.finish(await ctx.db.select().from(events).where(q.where).orderBy(...q.orderBy).limit(q.limit));
}
