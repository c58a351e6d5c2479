import { harareWallTimeToIso } from "@/server/domain/harare-time";
import { CURRENCIES, METHODS, type Currency, type PaymentMethod } from "@/server/domain/money";
import { PAYMENT_STATUSES, type PaymentStatus } from "@/server/domain/payment-status";
import { EXPORT_MODE_PARAM, modeName } from "@/server/domain/staff";

/**
 * The payments page's state, as its URL carries it (so a filtered view can be shared or
 * reloaded): `q` the reference search, dates as YYYY-MM-DD (Harare days), and the
 * keyset cursor (`after`/`before` a payment id). Anything malformed in a hand-edited URL is dropped.
 */
export type ListFilters = {
  q?: string;
  status?: PaymentStatus;
  currency?: Currency;
  method?: PaymentMethod;
  from?: string;
  to?: string;
  after?: string;
  before?: string;
};

const DATE = /^\d{4}-\d{2}-\d{2}$/;
const CURSOR = /^pay_[0-9a-z]{26}$/;
const oneOf = <T extends string>(list: readonly T[], v: string | null): T | undefined => (v !== null && (list as readonly string[]).includes(v) ? (v as T) : undefined);
const matching = (re: RegExp, v: string | null) => (v !== null && re.test(v) ? v : undefined);
/** A day that exists: 2026-02-30 or 9999-99-99 is dropped as any malformed value is, not read as 2 March. */
const day = (v: string | null) => (matching(DATE, v) && harareWallTimeToIso(v) ? v! : undefined);

export function readFilters(params: URLSearchParams): ListFilters {
  const q = params.get("q")?.trim().slice(0, 255);
  return {
    q: q || undefined,
    status: oneOf(PAYMENT_STATUSES, params.get("status")),
    currency: oneOf(CURRENCIES, params.get("currency")),
    method: oneOf(METHODS, params.get("method")),
    from: day(params.get("from")),
    to: day(params.get("to")),
    after: matching(CURSOR, params.get("after")),
    before: matching(CURSOR, params.get("before")),
  };
}

/** The query string of a view, in a fixed order, empty values left out. */
export function writeFilters(f: ListFilters): string {
  const params = new URLSearchParams();
  for (const k of ["q", "status", "currency", "method", "from", "to", "after", "before"] as const) {
    const v = f[k];
    if (v) params.set(k, v);
  }
  const s = params.toString();
  return s ? `?${s}` : "";
}

/** The time window of the date range, in Harare days: `to` is inclusive, so it ends at the next day's midnight. */
export function createdBounds(f: ListFilters): { createdGte?: string; createdLt?: string } {
  return { createdGte: harareWallTimeToIso(f.from), createdLt: harareWallTimeToIso(f.to, 1) };
}

/** The filters without the cursor: what the list selects, and what the export writes. */
export function selection(f: ListFilters) {
  return { search: f.q, status: f.status, currency: f.currency, method: f.method, ...createdBounds(f) };
}

/**
 * The CSV download of everything the filters select (all pages), in the mode the page shows when
 * it is known (`mode`): after a switch in another tab, this tab still exports what it lists.
 */
export function exportHref(f: ListFilters, livemode: boolean | null = null): string {
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(selection(f))) if (v) params.set(k, v);
  if (livemode !== null) params.set(EXPORT_MODE_PARAM, modeName(livemode));
  const q = params.toString();
  return `/dashboard/payments/export${q ? `?${q}` : ""}`;
}
