import { and, eq } from "drizzle-orm";
import { paymentLinks, type PaymentLink } from "@/db/schema";
import { resourceMissing } from "@/server/domain/errors";
import { isId } from "@/server/domain/ids";
import type { ServiceContext } from "@/server/context";

/** Another merchant's or environment's link is exactly as missing as one that never existed. */
export async function getPaymentLink(ctx: ServiceContext, id: string): Promise<PaymentLink> {
  if (!isId("paymentLink", id)) throw resourceMissing("payment link", id);
  const [row] = await ctx.db
    .select()
    .from(paymentLinks)
    .where(and(eq(paymentLinks.id, id), eq(paymentLinks.merchantId, ctx.merchant.id), eq(paymentLinks.livemode, ctx.livemode)));
  if (!row) throw resourceMissing("payment link", id);
  return row;
}
