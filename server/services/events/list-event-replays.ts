import { and, eq, gte } from "drizzle-orm";
import { eventReplays, type EventReplay } from "@/db/schema";
import type { ServiceContext } from "@/server/context";
import { idLowerBound } from "@/server/domain/ids";
import { keyset, withOwnedCursor, type Page, type PageRequest } from "../pagination";

const OWN = { what: "event replay", table: eventReplays, id: eventReplays.id, merchantId: eventReplays.merchantId, livemode: eventReplays.livemode };

/**
 * The merchant environment's window replays (the API's and the dashboard's), newest first, on
 * keyset cursors; `since`: only those started since then (ids sort by time, so it is an id bound
 * on event_replays_list_idx too).
 */
export async function listEventReplays(ctx: ServiceContext, filters: { since?: Date }, page: PageRequest): Promise<Page<EventReplay>> {
  const r = eventReplays;
  const where = and(eq(r.merchantId, ctx.merchant.id), eq(r.livemode, ctx.livemode), filters.since && gte(r.id, idLowerBound("eventReplay", filters.since)));
  const q = keyset(r.id, page, where, [r.merchantId, r.livemode]);
  return q.finish(await withOwnedCursor(ctx, page, OWN, (owned) => ctx.db.select().from(r).where(and(q.where, owned)).orderBy(...q.orderBy).limit(q.limit)));
}
