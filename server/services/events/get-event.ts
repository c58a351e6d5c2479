import { eq } from "drizzle-orm";
import { events, type EventRow } from "@/db/schema";
import { resourceMissing } from "@/server/domain/errors";
import { isId } from "@/server/domain/ids";
import { owned } from "@/server/domain/tenancy";
import type { ServiceContext } from "@/server/context";

/** This merchant's event in this environment; any other is missing. */
export async function getEvent(ctx: ServiceContext, id: string): Promise<EventRow> {
  if (!isId("event", id)) throw resourceMissing("event", id);
  // By id alone, the owner checked here: see owned().
  const [found] = await ctx.db.select().from(events).where(eq(events.id, id));
  const row = owned(found, ctx);
  if (!row) throw resourceMissing("event", id);
  return row;
}
