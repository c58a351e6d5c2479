import { and, eq, gte, ilike, lt, type SQL } from "drizzle-orm";
import { planPerValue } from "@/db/client";
import { payments, type Payment } from "@/db/schema";
import { idLowerBound } from "@/server/domain/ids";
import type { Currency, PaymentMethod } from "@/server/domain/money";
import type { PaymentStatus } from "@/server/domain/payment-status";
import type { ServiceContext } from "@/server/context";
import { keyset, type Page, type PageRequest } from "../pagination";

export type PaymentFilters = {
  status?: PaymentStatus;
  method?: PaymentMethod;
  currency?: Currency;
  /** Substring of the reference, case-insensitive (trigram index). */
  search?: string;
  createdGte?: Date;
  createdLt?: Date;
};

export async function listPayments(ctx: ServiceContext, filters: PaymentFilters, page: PageRequest): Promise<Page<Payment>> {
  const conditions: (SQL | undefined)[] = [
    eq(payments.merchantId, ctx.merchant.id),
    eq(payments.livemode, ctx.livemode),
    filters.status && eq(payments.status, filters.status),
    filters.method && eq(payments.method, filters.method),
    filters.currency && eq(payments.currency, filters.currency),
    // Planned for its pattern: a rare substring wants the trigram index, a common one the list order.
    filters.search !== undefined ? planPerValue(ilike(payments.reference, `%${escapeLike(filters.search)}%`)) : undefined,
    // Ids sort by creation time, so time bounds become id bounds and ride the list index.
    filters.createdGte && gte(payments.id, idLowerBound("payment", filters.createdGte)),
    filters.createdLt && lt(payments.id, idLowerBound("payment", filters.createdLt)),
  ];
  const q = keyset(payments.id, page, and(...conditions), [payments.merchantId, payments.livemode]);
  const rows = await ctx.db.select().from(payments).where(q.where).orderBy(...q.orderBy).limit(q.limit);
  return q.finish(rows);
}

function escapeLike(s: string): string {
  return s.replace(/[\\%_]/g, (c) => `\\${c}`);
}
