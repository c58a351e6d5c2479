import { and, eq } from "drizzle-orm";
import { events, type EventRow } from "@/db/schema";
import { resourceMissing } from "@/server/domain/errors";
import { isId } from "@/server/domain/ids";
import type { ServiceContext } from "@/server/context";

/** This merchant's event in this environment; any other is missing. */
export async function getEvent(ctx: ServiceContext, id: string): Promise<EventRow> {
  if (!isId("event", id)) throw resourceMissing("event", id);
  const [row] = await ctx.db
    .select()
    .from(events)
    .where(and(eq(events.id, id), eq(events.merchantId, ctx.merchant.id), eq(events.livemode, ctx.livemode)));
  if (!row) throw resourceMissing("event", id);
  return row;
}
