import { and, eq } from "drizzle-orm";
import { paymentLinks, type PaymentLink } from "@/db/schema";
import type { ServiceContext } from "@/server/context";
import { keyset, withOwnedCursor, type Page, type PageRequest } from "../pagination";

export async function listPaymentLinks(ctx: ServiceContext, filters: { active?: boolean }, page: PageRequest): Promise<Page<PaymentLink>> {
  const where = and(
    eq(paymentLinks.merchantId, ctx.merchant.id),
    eq(paymentLinks.livemode, ctx.livemode),
    filters.active !== undefined ? eq(paymentLinks.active, filters.active) : undefined,
  );
  const q = keyset(paymentLinks.id, page, where, [paymentLinks.merchantId, paymentLinks.livemode]);
  const own = { what: "payment link", table: paymentLinks, id: paymentLinks.id, merchantId: paymentLinks.merchantId, livemode: paymentLinks.livemode };
  return q.finish(await withOwnedCursor(ctx, page, own, (owned) => ctx.db.select().from(paymentLinks).where(and(q.where, owned)).orderBy(...q.orderBy).limit(q.limit)));
}
