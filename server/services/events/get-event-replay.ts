import { and, eq } from "drizzle-orm";
import { eventReplays, type EventReplay } from "@/db/schema";
import { resourceMissing } from "@/server/domain/errors";
import { isId } from "@/server/domain/ids";
import type { ServiceContext } from "@/server/context";

/** This merchant's window replay in this environment; another's is exactly as missing as one that never existed. */
export async function getEventReplay(ctx: ServiceContext, id: string): Promise<EventReplay> {
  if (!isId("eventReplay", id)) throw resourceMissing("event replay", id);
  const r = eventReplays;
  const [row] = await ctx.db.select().from(r).where(and(eq(r.id, id), eq(r.merchantId, ctx.merchant.id), eq(r.livemode, ctx.livemode)));
  if (!row) throw resourceMissing("event replay", id);
  return row;
}
