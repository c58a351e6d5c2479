"use client";

import { keepPreviousData, useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { usePathname, useRouter, useSearchParams } from "next/navigation";
import { useEffect, useRef, useState, useTransition } from "react";
import { AmountWithFee, FilterControls, MiddleClip, NothingThisWay, PageFailed, StaleReading, useRememberListView } from "@/components/dashboard/kit";
import { usePageLivemode, useTRPC } from "@/components/dashboard/trpc";
import { DataTable } from "@/components/ui/data-table";
import { isCursored, Pager } from "@/components/ui/pager";
import { Empty, Failed, Loading } from "@/components/ui/states";
import { PaymentStatusBadge } from "@/components/ui/status-badge";
import { CURRENCIES, METHODS } from "@/server/domain/money";
import { PAYMENT_STATUSES } from "@/server/domain/payment-status";
import { exportHref, readFilters, selection, writeFilters, type ListFilters } from "./filters";
import { settlesSoon, STATUS_LABEL, when } from "./format";
import "./payments.css";

const PAGE_SIZE = 25;
/** Between looks at a page of the list that shows a payment about to settle. */
const LIST_POLL_MS = 5_000;

/** /dashboard/payments: search and filter payments; every filter lives in the URL. */
export function PaymentsList() {
  const trpc = useTRPC();
  const livemode = usePageLivemode();
  const router = useRouter();
  const pathname = usePathname();
  const params = useSearchParams();
  const urlKey = params.toString();
  useRememberListView("payments", urlKey);
  const filters = readFilters(new URLSearchParams(urlKey));
  const filtered = Boolean(filters.q || filters.status || filters.currency || filters.method || filters.from || filters.to);
  const cursor = { startingAfter: filters.after, endingBefore: filters.before };

  // The filters last asked for: a navigation shows in the URL only once it commits (after a
  // round trip to the server), and a change made meanwhile (a status chosen while the search box
  // waits, Clear filters) must build on it, not on what the URL still says. A URL this list did
  // not ask for (the browser's Back, a link) sets it again.
  const intended = useRef(filters);
  const asked = useRef<string[]>([]);
  const [search, setSearch] = useState(filters.q ?? "");
  useEffect(() => {
    const mine = asked.current.indexOf(urlKey);
    if (mine >= 0) asked.current = asked.current.slice(mine + 1);
    else {
      intended.current = readFilters(new URLSearchParams(urlKey));
      // The search box shows what the list is filtered by (the nav's Payments link clears it).
      setSearch(intended.current.q ?? "");
    }
  }, [urlKey]);

  // A new filter starts again at the newest page; only the pager moves the cursor. A filter
  // replaces the address; a page is a step of its own, which the browser's Back undoes. Until
  // the address commits, the rows in sight are the old address's: `navigating` says so.
  const [navigating, startNavigation] = useTransition();
  const go = (next: ListFilters, step = false) => {
    const query = writeFilters(next);
    const key = query.slice(1);
    intended.current = next;
    // The same address again commits nothing, so it is not waited for.
    if (key !== urlKey) asked.current.push(key);
    startNavigation(() => router[step ? "push" : "replace"](`${pathname}${query}`, { scroll: false }));
  };
  const setFilter = (patch: Partial<ListFilters>) => go({ ...intended.current, ...patch, after: undefined, before: undefined });
  // A choice read as the URL would carry it (an unknown value is no filter).
  const choose = (key: "status" | "currency" | "method", value: string) => setFilter({ [key]: readFilters(new URLSearchParams({ [key]: value }))[key] });

  useEffect(() => {
    const q = search.trim() || undefined;
    if (q === intended.current.q) return;
    const t = setTimeout(() => {
      if (q !== intended.current.q) setFilter({ q });
    }, 350);
    return () => clearTimeout(t);
    // Typing drives this; the URL catching up must not restart the wait.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [search]);

  // A range that ends before it starts selects nothing: said, not asked (nor exported).
  const badRange = filters.from !== undefined && filters.to !== undefined && filters.to < filters.from;
  const list = useQuery({
    ...trpc.payments.list.queryOptions({ limit: PAGE_SIZE, ...selection(filters), startingAfter: filters.after, endingBefore: filters.before }),
    placeholderData: keepPreviousData,
    enabled: !badRange,
    // A row waiting on its customer or provider changes within seconds: asked again while it shows.
    refetchInterval: (q) => (q.state.data?.data.some((p) => settlesSoon(p.status)) ? LIST_POLL_MS : false),
  });

  return (
    <section>
      <h1>Payments</h1>
      <form className="toolbar pay-filters" role="search" onSubmit={(e) => e.preventDefault()}>
        <FilterControls>
          <label className="pay-search">
            Search
            <input
              type="search"
              value={search}
              onChange={(e) => setSearch(e.target.value)}
              placeholder="Reference, number or pay_ id"
              aria-describedby="pay-search-hint"
              maxLength={255}
            />
          </label>
          <AnyOf name="Status" value={filters.status} values={PAYMENT_STATUSES} label={(s) => STATUS_LABEL[s]} onChange={(v) => choose("status", v)} />
          <AnyOf name="Currency" value={filters.currency} values={CURRENCIES} onChange={(v) => choose("currency", v)} />
          <AnyOf name="Method" value={filters.method} values={METHODS} onChange={(v) => choose("method", v)} />
          <label>
            From (Harare day)
            <input type="date" value={filters.from ?? ""} max={filters.to} onChange={(e) => setFilter({ from: e.target.value || undefined })} />
          </label>
          <label>
            To (Harare day)
            <input type="date" value={filters.to ?? ""} min={filters.from} onChange={(e) => setFilter({ to: e.target.value || undefined })} />
          </label>
          <div className="pay-actions">
            {filtered ? (
              <button
                type="button"
                onClick={() => {
                  setSearch("");
                  go({});
                }}
              >
                Clear filters
              </button>
            ) : null}
            {/* Built on click, from the same selection as the list (Harare days). */}
            <button type="button" disabled={badRange} onClick={() => window.location.assign(exportHref(filters, livemode))} title="Every payment these filters select, as CSV">
              Export CSV
            </button>
          </div>
        </FilterControls>
      </form>
      <p id="pay-search-hint" className="hint pay-search-hint">
        Search finds part of a reference, the customer&apos;s number in any form (077 123 4567), or a payment id.
      </p>

      {badRange ? (
        <Failed message="The end of the range must be on or after its start." />
      ) : list.isPending || (list.isPlaceholderData && list.data.data.length === 0) ? (
        // An empty page shown while the next one loads would say the next one is empty too.
        <Loading what="payments" />
      ) : list.isError && !list.data ? (
        <PageFailed error={list.error} cursor={cursor} what="payments" onNewest={() => setFilter({})} retry={() => void list.refetch()} />
      ) : list.data.data.length === 0 && !isCursored(cursor) ? (
        <Empty>
          {!filtered
            ? "No payments yet. Payments created with this environment's API keys appear here."
            : filters.q
              ? `No payments match "${filters.q}" with these filters. The search finds part of a reference, a customer's whole number in any form, or a payment's pay_ id.`
              : "No payments match these filters."}
        </Empty>
      ) : (
        <>
          {/* Read once, a failed reading again keeps the page shown, and says so. */}
          <StaleReading q={list} what="payments" />
          {list.data.data.length === 0 ? (
            <NothingThisWay cursor={cursor} what="payments" filtered={filtered} onNewest={() => setFilter({})} />
          ) : (
            <DataTable
              className="cards pay-table"
              busy={list.isPlaceholderData}
              columns={["Reference", { label: "Amount", num: true }, "Status", "Customer", "Method", "Created"]}
              rows={list.data.data}
              row={(p) => (
                <tr key={p.id} onClick={() => router.push(`/dashboard/payments/${p.id}`)}>
                  <td>
                    <Link href={`/dashboard/payments/${p.id}`} onClick={(e) => e.stopPropagation()}>
                      <MiddleClip text={p.reference} />
                    </Link>
                  </td>
                  <td className="num">
                    <AmountWithFee payment={p} />
                  </td>
                  {/* Either may wrap on a narrow screen rather than push the table wider than the page. */}
                  <td className="cell-wrap">
                    <PaymentStatusBadge status={p.status} />
                    {p.amount_refunded > 0 ? (
                      <span className="badge neutral pay-refunded">{p.amount_refunded === p.amount ? "Refunded" : "Partly refunded"}</span>
                    ) : null}
                  </td>
                  <td className="pay-msisdn">{p.customer_msisdn_masked}</td>
                  <td className="pay-method">{p.method}</td>
                  <td className="pay-created cell-wrap">
                    <time dateTime={p.created_at}>{when(p.created_at)}</time>
                  </td>
                </tr>
              )}
            />
          )}
          {/* Only on the rows of the filters last asked for: not while another filter's page is on its way. */}
          <Pager
            ids={list.data.data.map((p) => p.id)}
            hasMore={list.data.hasMore}
            cursor={cursor}
            disabled={navigating || list.isPlaceholderData}
            onChange={(c) => go({ ...intended.current, after: c.startingAfter, before: c.endingBefore }, true)}
          />
        </>
      )}
    </section>
  );
}

/** One of a filter's values, or Any; `label` says a value as the page shows it. */
function AnyOf<T extends string>({ name, value, values, label = (v) => v, onChange }: { name: string; value: T | undefined; values: readonly T[]; label?: (v: T) => string; onChange: (value: string) => void }) {
  return (
    <label>
      {name}
      <select value={value ?? ""} onChange={(e) => onChange(e.target.value)}>
        <option value="">Any</option>
        {values.map((v) => (
          <option key={v} value={v}>
            {label(v)}
          </option>
        ))}
      </select>
    </label>
  );
}
