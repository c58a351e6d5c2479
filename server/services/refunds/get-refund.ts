import { and, eq } from "drizzle-orm";
import { refunds, type Refund } from "@/db/schema";
import { resourceMissing } from "@/server/domain/errors";
import { isId } from "@/server/domain/ids";
import type { ServiceContext } from "@/server/context";

/** Another merchant's or environment's refund is exactly as missing as one that never existed. */
export async function getRefund(ctx: ServiceContext, id: string): Promise<Refund> {
  if (!isId("refund", id)) throw resourceMissing("refund", id);
  const [row] = await ctx.db
    .select()
    .from(refunds)
    .where(and(eq(refunds.id, id), eq(refunds.merchantId, ctx.merchant.id), eq(refunds.livemode, ctx.livemode)));
  if (!row) throw resourceMissing("refund", id);
  return row;
}
