import { and, eq } from "drizzle-orm";
import { refunds, type Refund } from "@/db/schema";
import type { ServiceContext } from "@/server/context";
import { keyset, withOwnedCursor, type Page, type PageRequest } from "../pagination";

/** Newest first; `paymentId` narrows to one payment (another merchant's payment lists nothing). */
export async function listRefunds(ctx: ServiceContext, filters: { paymentId?: string }, page: PageRequest): Promise<Page<Refund>> {
  const where = and(
    eq(refunds.merchantId, ctx.merchant.id),
    eq(refunds.livemode, ctx.livemode),
    filters.paymentId ? eq(refunds.paymentId, filters.paymentId) : undefined,
  );
  // With a payment, its index (payment_id, id) serves the order; otherwise the list index.
  const scope = filters.paymentId ? [refunds.paymentId] : [refunds.merchantId, refunds.livemode];
  const q = keyset(refunds.id, page, where, scope);
  const own = { what: "refund", table: refunds, id: refunds.id, merchantId: refunds.merchantId, livemode: refunds.livemode };
  return q.finish(await withOwnedCursor(ctx, page, own, (owned) => ctx.db.select().from(refunds).where(and(q.where, owned)).orderBy(...q.orderBy).limit(q.limit)));
}
