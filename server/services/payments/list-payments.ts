import { and, eq, gte, ilike, lt, type SQL } from "drizzle-orm";
import { planPerValue, type Db } from "@/db/client";
import { placeholder as p, preparedPerShape } from "@/db/prepared-once";
import { payments, type Payment } from "@/db/schema";
import { idLowerBound } from "@/server/domain/ids";
import { readPaymentSearch } from "@/server/domain/payment-search";
import type { Currency, PaymentMethod } from "@/server/domain/money";
import type { PaymentStatus } from "@/server/domain/payment-status";
import type { ServiceContext } from "@/server/context";
import type { StaffPaymentSelection } from "@/server/schemas/payments";
import { cursorOwned, directionOf, finishPage, keysetOrder, keysetValues, withOwnedCursor, type Direction, type OwnedTable, type Page, type PageRequest } from "../pagination";

export type PaymentFilters = {
  status?: PaymentStatus;
  method?: PaymentMethod;
  currency?: Currency;
  /** Substring of the reference, case-insensitive (trigram index). */
  search?: string;
  /** The customer's number, strict form. */
  customerMsisdn?: string;
  paymentId?: string;
  createdGte?: Date;
  createdLt?: Date;
};

const FILTERS = ["status", "method", "currency", "search", "customerMsisdn", "paymentId", "createdGte", "createdLt"] as const;

/**
 * The dashboard's selection as filters. Its search box reads a payment id, a number or part of a
 * reference (`readPaymentSearch`), where the API's `search` is the reference alone.
 */
export function staffPaymentFilters({ search, createdGte, createdLt, ...exact }: StaffPaymentSelection): PaymentFilters {
  const read = search === undefined ? undefined : readPaymentSearch(search);
  return {
    ...exact,
    ...(read === undefined ? {} : "msisdn" in read ? { customerMsisdn: read.msisdn } : "paymentId" in read ? { paymentId: read.paymentId } : { search: read.reference }),
    createdGte: createdGte ? new Date(createdGte) : undefined,
    createdLt: createdLt ? new Date(createdLt) : undefined,
  };
}
type Filter = (typeof FILTERS)[number];

/**
 * A page of payments, newest first. The query of each shape (which filters are set, which way the
 * cursor points) is built and prepared once: building drizzle's selection of
 * 35 columns cost more of a list request than the rest of it together.
 */
export async function listPayments(ctx: ServiceContext, filters: PaymentFilters, page: PageRequest): Promise<Page<Payment>> {
  const present = FILTERS.filter((f) => filters[f] !== undefined);
  const direction = directionOf(page);
  const { cursor, fetch } = keysetValues(page);
  const rows = await withOwnedCursor(ctx, page, OWN, () => listQuery(ctx.db, present, direction).execute({
    merchantId: ctx.merchant.id,
    livemode: ctx.livemode,
    status: filters.status,
    method: filters.method,
    currency: filters.currency,
    pattern: filters.search === undefined ? undefined : `%${escapeLike(filters.search)}%`,
    customerMsisdn: filters.customerMsisdn,
    paymentId: filters.paymentId,
    // Ids sort by creation time, so time bounds become id bounds and ride the list index.
    createdGte: filters.createdGte && idLowerBound("payment", filters.createdGte),
    createdLt: filters.createdLt && idLowerBound("payment", filters.createdLt),
    cursor,
    fetch,
  }));
  return finishPage(page, rows);
}

const OWN: OwnedTable = { what: "payment", table: payments, id: payments.id, merchantId: payments.merchantId, livemode: payments.livemode };

function buildList(db: Db, present: readonly Filter[], direction: Direction) {
  const has = (f: Filter) => present.includes(f);
  const conditions: (SQL | undefined)[] = [
    eq(payments.merchantId, p<string>("merchantId")),
    eq(payments.livemode, p<boolean>("livemode")),
    has("status") ? eq(payments.status, p<PaymentStatus>("status")) : undefined,
    has("method") ? eq(payments.method, p<PaymentMethod>("method")) : undefined,
    has("currency") ? eq(payments.currency, p<Currency>("currency")) : undefined,
    // Planned for its pattern: a rare substring wants the trigram index, a common one the list order.
    has("search") ? planPerValue(ilike(payments.reference, p<string>("pattern"))) : undefined,
    has("customerMsisdn") ? eq(payments.customerMsisdn, p<string>("customerMsisdn")) : undefined,
    has("paymentId") ? eq(payments.id, p<string>("paymentId")) : undefined,
    has("createdGte") ? gte(payments.id, p<string>("createdGte")) : undefined,
    has("createdLt") ? lt(payments.id, p<string>("createdLt")) : undefined,
  ];
  // A cursor must be one of the caller's payments (withOwnedCursor): checked inside the page's own statement.
  if (direction !== "first") conditions.push(cursorOwned(OWN, p<string>("cursor"), p<string>("merchantId"), p<boolean>("livemode")));
  const q = keysetOrder(payments.id, direction, and(...conditions), [payments.merchantId, payments.livemode], p<string>("cursor"));
  return db
    .select()
    .from(payments)
    .where(q.where)
    .orderBy(...q.orderBy)
    .limit(p<number>("fetch"))
    .prepare(`payments_list_${direction}_${present.join("_")}`);
}

/** Each shape's query, built once. */
const listQuery = preparedPerShape((present: readonly Filter[], direction: Direction) => `${direction}:${present.join(",")}`, buildList);

function escapeLike(s: string): string {
  return s.replace(/[\\%_]/g, (c) => `\\${c}`);
}
