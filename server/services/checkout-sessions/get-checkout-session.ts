import { and, eq } from "drizzle-orm";
import { checkoutSessions, type CheckoutSession } from "@/db/schema";
import { resourceMissing } from "@/server/domain/errors";
import { isId } from "@/server/domain/ids";
import type { ServiceContext } from "@/server/context";

/** Another merchant's or environment's session is exactly as missing as one that never existed. */
export async function getCheckoutSession(ctx: ServiceContext, id: string): Promise<CheckoutSession> {
  if (!isId("checkoutSession", id)) throw resourceMissing("checkout session", id);
  const [row] = await ctx.db
    .select()
    .from(checkoutSessions)
    .where(and(eq(checkoutSessions.id, id), eq(checkoutSessions.merchantId, ctx.merchant.id), eq(checkoutSessions.livemode, ctx.livemode)));
  if (!row) throw resourceMissing("checkout session", id);
  return row;
}
