import { and, eq } from "drizzle-orm";
import { checkoutSessions, type CheckoutSession } from "@/db/schema";
import type { ServiceContext } from "@/server/context";
import { keyset, withOwnedCursor, type Page, type PageRequest } from "../pagination";

export async function listCheckoutSessions(ctx: ServiceContext, page: PageRequest): Promise<Page<CheckoutSession>> {
  const where = and(eq(checkoutSessions.merchantId, ctx.merchant.id), eq(checkoutSessions.livemode, ctx.livemode));
  const q = keyset(checkoutSessions.id, page, where, [checkoutSessions.merchantId, checkoutSessions.livemode]);
  const own = { what: "checkout session", table: checkoutSessions, id: checkoutSessions.id, merchantId: checkoutSessions.merchantId, livemode: checkoutSessions.livemode };
  return q.finish(await withOwnedCursor(ctx, page, own, (owned) => ctx.db.select().from(checkoutSessions).where(and(q.where, owned)).orderBy(...q.orderBy).limit(q.limit)));
}
