import { and, eq, sql } from "drizzle-orm";
import { payments, refunds, settlementLines, settlements, type Settlement, type SettlementLine } from "@/db/schema";
import type { ServiceContext } from "@/server/context";
import type { SettlementStatus } from "@/server/domain/settlements";
import { resourceMissing } from "@/server/domain/errors";
import { cursorParam, directionOf, keyset, keysetSort, keysetValues, withOwnedCursor, type Page, type PageRequest } from "../pagination";
import { getSettlement } from "./get-settlement";

export async function listSettlements(ctx: ServiceContext, filters: { status?: SettlementStatus }, page: PageRequest): Promise<Page<Settlement>> {
  const q = keyset(
    settlements.id,
    page,
    and(eq(settlements.merchantId, ctx.merchant.id), eq(settlements.livemode, ctx.livemode), filters.status && eq(settlements.status, filters.status)),
    [settlements.merchantId, settlements.livemode],
  );
  const own = { what: "settlement", table: settlements, id: settlements.id, merchantId: settlements.merchantId, livemode: settlements.livemode };
  return q.finish(await withOwnedCursor(ctx, page, own, (owned) => ctx.db.select().from(settlements).where(and(q.where, owned)).orderBy(...q.orderBy).limit(q.limit)));
}

/**
 * A line with the payment it is about (the payment itself, or the one a refund refunded) and that
 * payment's reference, the name a merchant's books know it by.
 */
export type SettlementLineOfPayment = SettlementLine & { paymentId: string; reference: string; livemode: boolean };

/**
 * A batch's line items, by object id descending (refunds, then payments, newest first); keyset on
 * the object id. Each line's payment and reference come in the same query.
 */
export async function listSettlementLines(ctx: ServiceContext, settlementId: string, page: PageRequest): Promise<Page<SettlementLineOfPayment>> {
  await getSettlement(ctx, settlementId);
  const q = keyset(settlementLines.objectId, page, eq(settlementLines.settlementId, settlementId), [settlementLines.settlementId]);
  const { cursor } = keysetValues(page);
  // The page's lines first (the primary key's order, read no further than the page), then each
  // one's payment, by primary keys: the joins never touch the batch's other lines.
  const pageOfLines = ctx.db.select().from(settlementLines).where(q.where).orderBy(...q.orderBy).limit(q.limit).as("page_lines");
  const [rows, cursorLine] = await Promise.all([
    ctx.db
      .select({ line: pageOfLines._.selectedFields, paymentId: payments.id, reference: payments.reference })
      .from(pageOfLines)
      .leftJoin(refunds, and(eq(pageOfLines.kind, "refund"), eq(refunds.id, pageOfLines.objectId)))
      .innerJoin(payments, eq(payments.id, sql`coalesce(${refunds.paymentId}, ${pageOfLines.objectId})`))
      .orderBy(...keysetSort([pageOfLines.objectId], directionOf(page))),
    // A cursor names one of this batch's lines (the settlement is ours: getSettlement), as withOwnedCursor has it for other lists.
    cursor === undefined
      ? [{}]
      : ctx.db
          .select({ id: settlementLines.objectId })
          .from(settlementLines)
          .where(and(eq(settlementLines.settlementId, settlementId), eq(settlementLines.objectId, cursor)))
          .limit(1),
  ]);
  if (cursor !== undefined && cursorLine.length === 0) throw resourceMissing("settlement line", cursor, cursorParam(page));
  const lines = q.finish(rows);
  return { ...lines, data: lines.data.map((l) => ({ ...l.line, paymentId: l.paymentId, reference: l.reference, livemode: ctx.livemode })) };
}
