import { and, eq } from "drizzle-orm";
import { settlements, type Settlement } from "@/db/schema";
import type { ServiceContext } from "@/server/context";
import { resourceMissing } from "@/server/domain/errors";
import { isId } from "@/server/domain/ids";

/** Another merchant's or environment's batch is exactly as missing as one that never existed. */
export async function getSettlement(ctx: ServiceContext, id: string): Promise<Settlement> {
  if (!isId("settlement", id)) throw resourceMissing("settlement", id);
  const [row] = await ctx.db
    .select()
    .from(settlements)
    .where(and(eq(settlements.id, id), eq(settlements.merchantId, ctx.merchant.id), eq(settlements.livemode, ctx.livemode)));
  if (!row) throw resourceMissing("settlement", id);
  return row;
}
