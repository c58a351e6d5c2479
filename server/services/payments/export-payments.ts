import type { Payment } from "@/db/schema";
import type { ServiceContext } from "@/server/context";
import { HARARE_OFFSET_MS } from "@/server/domain/harare-time";
import { toMajorInput } from "@/server/domain/money";
import { toPaymentResource, type PaymentResource } from "@/server/schemas/payments";
import { csvRow } from "./csv";
import { listPayments, type PaymentFilters } from "./list-payments";

/**
 * The export's columns, named as the API names the fields, in the order a reconciliation reads
 * them. Amounts are decimals in the currency's major units ("42.50"), as a spreadsheet sums them,
 * where the API gives minor units (4250).
 */
const major = (amount: number, p: PaymentResource) => toMajorInput(amount, p.currency);
const COLUMNS = [
  ["id", (p) => p.id],
  ["created_at", (p) => p.created_at],
  ["reference", (p) => p.reference],
  ["status", (p) => p.status],
  ["amount", (p) => major(p.amount, p)],
  ["currency", (p) => p.currency],
  ["fee", (p) => major(p.fee, p)],
  ["fee_bearer", (p) => p.fee_bearer],
  ["charged_amount", (p) => major(p.charged_amount, p)],
  ["amount_refunded", (p) => major(p.amount_refunded, p)],
  ["method", (p) => p.method],
  ["customer_msisdn_masked", (p) => p.customer_msisdn_masked],
  ["failure_code", (p) => p.failure_code],
  ["failure_message", (p) => p.failure_message],
  ["provider_reference", (p) => p.provider_reference],
  ["payment_link", (p) => p.payment_link],
  ["checkout_session", (p) => p.checkout_session],
  ["succeeded_at", (p) => p.status_transitions.succeeded_at],
  ["metadata", (p) => (Object.keys(p.metadata).length ? JSON.stringify(p.metadata) : "")],
] as const satisfies readonly (readonly [string, (p: PaymentResource) => string | number | null])[];

export const EXPORT_COLUMNS = COLUMNS.map(([name]) => name);

/** Rows per query: big enough that a 100k-row export is 200 index range scans, small enough to hold. */
export const EXPORT_PAGE_SIZE = 500;

/**
 * The payments a filter selects, as CSV text: the header, then one chunk per keyset page, newest
 * first. A generator, so the caller pulls a page only when it has room for it; nothing holds the
 * whole set. Walking `startingAfter` only ever goes older, so payments created during the export
 * are not in it and none is written twice.
 */
export async function* exportPayments(ctx: ServiceContext, filters: PaymentFilters, opts: { pageSize?: number } = {}): AsyncGenerator<string> {
  const limit = opts.pageSize ?? EXPORT_PAGE_SIZE;
  yield csvRow(EXPORT_COLUMNS);
  let startingAfter: string | undefined;
  for (;;) {
    const page = await listPayments(ctx, filters, { limit, startingAfter });
    if (page.data.length) yield page.data.map(toRow).join("");
    if (!page.hasMore) return;
    startingAfter = page.data[page.data.length - 1]!.id;
  }
}

function toRow(p: Payment): string {
  const r = toPaymentResource(p);
  return csvRow(COLUMNS.map(([, cell]) => cell(r)));
}

/** The download's file name: which environment, and when. */
/** The download's name, stamped in Harare time as the dashboard shows times: `payments-test-2026-11-27-01-40-59.csv`. */
export function exportFileName(livemode: boolean, now: Date): string {
  const harare = new Date(now.getTime() + HARARE_OFFSET_MS).toISOString();
  return `payments-${livemode ? "live" : "test"}-${harare.slice(0, 19).replace(/[:T]/g, "-")}.csv`;
}
