import { and, eq } from "drizzle-orm";
import { settlementLines, settlements, type Settlement, type SettlementLine } from "@/db/schema";
import type { ServiceContext } from "@/server/context";
import type { SettlementStatus } from "@/server/domain/settlements";
import { keyset, type Page, type PageRequest } from "../pagination";
import { getSettlement } from "./get-settlement";

export async function listSettlements(ctx: ServiceContext, filters: { status?: SettlementStatus }, page: PageRequest): Promise<Page<Settlement>> {
  const q = keyset(
    settlements.id,
    page,
    and(eq(settlements.merchantId, ctx.merchant.id), eq(settlements.livemode, ctx.livemode), filters.status && eq(settlements.status, filters.status)),
    [settlements.merchantId, settlements.livemode],
  );
  return q.finish(await ctx.db.select().from(settlements).where(q.where).orderBy(...q.orderBy).limit(q.limit));
}

/** A batch's line items, by object id descending (refunds, then payments, newest first); keyset on the object id. */
export async function listSettlementLines(ctx: ServiceContext, settlementId: string, page: PageRequest): Promise<Page<SettlementLine>> {
  await getSettlement(ctx, settlementId);
  const q = keyset(settlementLines.objectId, page, eq(settlementLines.settlementId, settlementId), [settlementLines.settlementId]);
  return q.finish(await ctx.db.select().from(settlementLines).where(q.where).orderBy(...q.orderBy).limit(q.limit));
}
