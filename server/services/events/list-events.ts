import { and, eq, gte, inArray, lt, type SQL } from "drizzle-orm";
import { placeholder as p, preparedPerShape } from "@/db/prepared-once";
import { events, type EventRow } from "@/db/schema";
import type { EventType } from "@/server/domain/events";
import { idLowerBound } from "@/server/domain/ids";
import type { ServiceContext } from "@/server/context";
import { cursorOwned, directionOf, finishPage, keyset, keysetOrder, keysetValues, withOwnedCursor, type Direction, type OwnedTable, type Page, type PageRequest } from "../pagination";

export type EventFilters = { types?: EventType[]; createdGte?: Date; createdLt?: Date };

/** The conditions of an event window, shared by the list and the replay of a window. */
export function eventWindow(ctx: ServiceContext, f: EventFilters): SQL {
  return windowConditions({
    merchantId: ctx.merchant.id,
    livemode: ctx.livemode,
    types: f.types,
    // Ids sort by creation time, so time bounds are id bounds and ride the list index.
    idGte: f.createdGte && idLowerBound("event", f.createdGte),
    idLt: f.createdLt && idLowerBound("event", f.createdLt),
  });
}

/** The window's conditions from values, or from placeholders standing for them in a prepared statement. */
function windowConditions(w: { merchantId: string; livemode: boolean; types?: EventType[]; idGte?: string; idLt?: string }): SQL {
  return and(
    eq(events.merchantId, w.merchantId),
    eq(events.livemode, w.livemode),
    w.types && (w.types.length === 1 ? eq(events.type, w.types[0]!) : inArray(events.type, w.types)),
    w.idGte !== undefined ? gte(events.id, w.idGte) : undefined,
    w.idLt !== undefined ? lt(events.id, w.idLt) : undefined,
  )!;
}

/** `objectIds` narrows to the events about those objects (a payment's timeline: it and its refunds). */
export async function listEvents(ctx: ServiceContext, filters: EventFilters & { objectIds?: string[] }, page: PageRequest): Promise<Page<EventRow>> {
  if (filters.objectIds?.length === 0) return { data: [], hasMore: false };
  if (!filters.objectIds && (filters.types === undefined || filters.types.length === 1)) return listPrepared(ctx, filters, page);
  const scope = orderScope(filters.types?.length === 1);
  const where = filters.objectIds ? and(eventWindow(ctx, filters), inArray(events.objectId, filters.objectIds)) : eventWindow(ctx, filters);
  const q = keyset(events.id, page, where, scope);
  return q.finish(await withOwnedCursor(ctx, page, OWN, (owned) => ctx.db.select().from(events).where(and(q.where, owned)).orderBy(...q.orderBy).limit(q.limit)));
}

const OWN: OwnedTable = { what: "event", table: events, id: events.id, merchantId: events.merchantId, livemode: events.livemode };

/** The leading columns of the list's order: one type rides events_type_list_idx, which then serves the order too. */
function orderScope(oneType: boolean) {
  return oneType ? [events.merchantId, events.livemode, events.type] : [events.merchantId, events.livemode];
}

type Bounds = { type: boolean; createdGte: boolean; createdLt: boolean };

/**
 * The API's list (no object ids, at most one type) as a prepared statement per shape: which of the
 * type and time bounds are set, and which way the cursor points.
 */
async function listPrepared(ctx: ServiceContext, filters: EventFilters, page: PageRequest): Promise<Page<EventRow>> {
  const bounds: Bounds = { type: filters.types?.length === 1, createdGte: filters.createdGte !== undefined, createdLt: filters.createdLt !== undefined };
  const { cursor, fetch } = keysetValues(page);
  const rows = await withOwnedCursor(ctx, page, OWN, () => listStatement(ctx.db, directionOf(page), bounds).execute({
    merchantId: ctx.merchant.id,
    livemode: ctx.livemode,
    type: filters.types?.[0],
    createdGte: filters.createdGte && idLowerBound("event", filters.createdGte),
    createdLt: filters.createdLt && idLowerBound("event", filters.createdLt),
    cursor,
    fetch,
  }));
  return finishPage(page, rows as EventRow[]);
}

const listStatement = preparedPerShape(
  (direction: Direction, b: Bounds) => `${direction}:${b.type}:${b.createdGte}:${b.createdLt}`,
  (db, direction, b) => {
    const where = windowConditions({
      merchantId: p("merchantId"),
      livemode: p("livemode"),
      types: b.type ? [p("type")] : undefined,
      idGte: b.createdGte ? p("createdGte") : undefined,
      idLt: b.createdLt ? p("createdLt") : undefined,
    });
    const q = keysetOrder(events.id, direction, where, orderScope(b.type), p<string>("cursor"));
    // A cursor must be one of the caller's events (withOwnedCursor): checked inside the page's own statement.
    const owned = direction === "first" ? undefined : cursorOwned(OWN, p<string>("cursor"), p<string>("merchantId"), p<boolean>("livemode"));
    return db.select().from(events).where(and(q.where, owned)).orderBy(...q.orderBy).limit(p<number>("fetch")).prepare(`events_list_${direction}`);
  },
);
