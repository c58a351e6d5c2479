import { and, eq } from "drizzle-orm";
import { paymentLinks, type PaymentLink } from "@/db/schema";
import type { ServiceContext } from "@/server/context";
import { getPaymentLink } from "./get-payment-link";

/**
 * The link takes no more payments; attempts already made go on to their outcomes. A compare-and-set
 * on `active`, so deactivating twice keeps the first `deactivated_at` and answers the link as it is.
 */
export async function deactivatePaymentLink(ctx: ServiceContext, id: string): Promise<PaymentLink> {
  const link = await getPaymentLink(ctx, id);
  if (!link.active) return link;
  const now = ctx.clock.now();
  const [row] = await ctx.db
    .update(paymentLinks)
    .set({ active: false, deactivatedAt: now, updatedAt: now })
    .where(and(eq(paymentLinks.id, link.id), eq(paymentLinks.active, true)))
    .returning();
  return row ?? getPaymentLink(ctx, id);
}
