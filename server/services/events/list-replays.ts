import { and, desc, eq, gte } from "drizzle-orm";
import { eventReplays, type EventReplay } from "@/db/schema";
import type { ServiceContext } from "@/server/context";
import { idLowerBound } from "@/server/domain/ids";

/**
 * The merchant environment's window replays started since `since`, newest first, at most `limit`
 * (event_replays_list_idx: ids sort by time): what the dashboard shows of them.
 */
export async function listRecentReplays(ctx: ServiceContext, opts: { since: Date; limit: number }): Promise<EventReplay[]> {
  const r = eventReplays;
  return ctx.db
    .select()
    .from(r)
    .where(and(eq(r.merchantId, ctx.merchant.id), eq(r.livemode, ctx.livemode), gte(r.id, idLowerBound("eventReplay", opts.since))))
    .orderBy(desc(r.merchantId), desc(r.livemode), desc(r.id))
    .limit(opts.limit);
}
