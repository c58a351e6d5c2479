import { and, eq, gte, ilike, lt, or, sql, type SQL } from "drizzle-orm";
import { planPerValue, type Db } from "@/db/client";
import { placeholder as p, preparedOnce, preparedPerShape } from "@/db/prepared-once";
import { payments, type Payment } from "@/db/schema";
import { idLowerBound } from "@/server/domain/ids";
import { distinctivePart, readPaymentSearch, sharedStart } from "@/server/domain/payment-search";
import type { Currency, PaymentMethod } from "@/server/domain/money";
import type { PaymentStatus } from "@/server/domain/payment-status";
import type { ServiceContext } from "@/server/context";
import type { StaffPaymentSelection } from "@/server/schemas/payments";
import { TtlCache } from "@/server/ttl-cache";
import { cursorOwned, directionOf, finishPage, keysetOrder, keysetSort, keysetValues, withOwnedCursor, type Direction, type OwnedTable, type Page, type PageRequest } from "../pagination";

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
  /** With `customerMsisdn` and `search`: a payment matching either (a number that may be a reference's digits). */
  numberOrReference?: true;
};

const FILTERS = ["status", "method", "currency", "search", "customerMsisdn", "numberOrReference", "paymentId", "createdGte", "createdLt"] as const;
/** A search's shape when its distinctive part finds the candidates (distinctivePart). */
const NARROWED = "narrowed";

/**
 * The dashboard's selection as filters. Its search box reads a payment id, a number or part of a
 * reference (`readPaymentSearch`), where the API's `search` is the reference alone.
 */
export function staffPaymentFilters({ search, createdGte, createdLt, ...exact }: StaffPaymentSelection): PaymentFilters {
  const read = search === undefined ? undefined : readPaymentSearch(search);
  return {
    ...exact,
    ...(read === undefined
      ? {}
      : read.by === "number"
        ? { customerMsisdn: read.msisdn, search: read.reference, numberOrReference: true as const }
        : read.by === "id"
          ? { paymentId: read.paymentId }
          : { search: read.reference }),
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
  // A number's digits are distinctive already (nine or more of them).
  const narrowed = filters.search === undefined || filters.numberOrReference ? undefined : distinctivePart(filters.search, await sharedReferenceStart(ctx));
  const present: Shape[] = FILTERS.filter((f) => filters[f] !== undefined);
  if (narrowed !== undefined) present.push(NARROWED);
  const direction = directionOf(page);
  const { cursor, fetch } = keysetValues(page);
  const rows = await withOwnedCursor(ctx, page, OWN, () => listQuery(ctx.db, present, direction).execute({
    merchantId: ctx.merchant.id,
    livemode: ctx.livemode,
    status: filters.status,
    method: filters.method,
    currency: filters.currency,
    pattern: filters.search === undefined ? undefined : containing(filters.search),
    candidates: narrowed === undefined ? undefined : containing(narrowed),
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

type Shape = Filter | typeof NARROWED;

function buildList(db: Db, present: readonly Shape[], direction: Direction) {
  const has = (f: Shape) => present.includes(f);
  const conditions: (SQL | undefined)[] = [
    eq(payments.merchantId, p<string>("merchantId")),
    eq(payments.livemode, p<boolean>("livemode")),
    has("status") ? eq(payments.status, p<PaymentStatus>("status")) : undefined,
    has("method") ? eq(payments.method, p<PaymentMethod>("method")) : undefined,
    has("currency") ? eq(payments.currency, p<Currency>("currency")) : undefined,
    // Planned for its pattern: a rare substring wants the trigram index, a common one the list order.
    ...(has("numberOrReference")
      ? [or(eq(payments.customerMsisdn, p<string>("customerMsisdn")), planPerValue(ilike(payments.reference, p<string>("pattern"))))]
      : [
          ...(has("search") ? searchConditions(has(NARROWED)) : []),
          has("customerMsisdn") ? eq(payments.customerMsisdn, p<string>("customerMsisdn")) : undefined,
        ]),
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
const listQuery = preparedPerShape((present: readonly Shape[], direction: Direction) => `${direction}:${present.join(",")}`, buildList);

/**
 * A reference search. Narrowed, the trigram index finds candidates by the search's distinctive
 * part, and the whole search is checked on `reference || ''`, an expression the index does not
 * serve, so that the planner does not hand the index the shared prefix's trigrams after all.
 */
function searchConditions(narrowed: boolean): SQL[] {
  if (!narrowed) return [planPerValue(ilike(payments.reference, p<string>("pattern")))];
  return [planPerValue(ilike(payments.reference, p<string>("candidates"))), sql`(${payments.reference} || '') ilike ${p<string>("pattern")}`];
}

function containing(text: string): string {
  return `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/** References sampled to find the start a merchant's references share: the newest, by the list index. */
const REFERENCE_SAMPLE = 50;
const SHARED_START_TTL_MS = 10 * 60_000;
const sharedStarts = new TtlCache<string, string>(10_000);
const newestReferences = preparedOnce((db) =>
  db
    .select({ reference: payments.reference })
    .from(payments)
    .where(and(eq(payments.merchantId, p<string>("merchantId")), eq(payments.livemode, p<boolean>("livemode"))))
    // Led by the list index's columns, as a page's order is (keyset): ordered by the id alone, a
    // merchant with most of the table is read by walking the primary key back through every newer
    // payment of the other merchants and environments.
    .orderBy(...keysetSort([payments.merchantId, payments.livemode, payments.id], "first"))
    .limit(REFERENCE_SAMPLE)
    .prepare("payments_newest_references"),
);

/**
 * The start this merchant's references share in this mode (`inv-0`), from its newest
 * REFERENCE_SAMPLE, kept for ten minutes: a merchant's reference scheme changes seldom, and a
 * stale start only makes a search read more of the index, never answer differently. Empty for a
 * merchant with fewer payments, whose searches read little whatever they do.
 */
async function sharedReferenceStart(ctx: ServiceContext): Promise<string> {
  const key = `${ctx.merchant.id}:${ctx.livemode ? "live" : "test"}`;
  const now = ctx.clock.now().getTime();
  const known = sharedStarts.get(key, now);
  if (known !== undefined) return known;
  const rows = await newestReferences(ctx.db).execute({ merchantId: ctx.merchant.id, livemode: ctx.livemode });
  const start = rows.length < REFERENCE_SAMPLE ? "" : sharedStart(rows.map((r) => r.reference));
  sharedStarts.set(key, start, now + SHARED_START_TTL_MS);
  return start;
}
