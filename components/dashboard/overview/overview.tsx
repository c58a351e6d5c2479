"use client";

import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useState } from "react";
import { DataTable } from "@/components/ui/data-table";
import { Failed, Loading } from "@/components/ui/states";
import { PaymentStatusBadge } from "@/components/ui/status-badge";
import { CURRENCIES, formatAmount, type Currency } from "@/server/domain/money";
import { PAYMENT_STATUSES } from "@/server/domain/payment-status";
import { errorMessage, useTRPC } from "../trpc";
import { VolumeChart } from "./volume-chart";
import { AmountWithFee, formatWhen, MiddleClip, StaleReading } from "../kit";
import "./overview.css";
import { count, plural } from "@/components/ui/plural";

type Volume = Record<Currency, number>;

const rate = (r: number | null) => (r === null ? "—" : `${(r * 100).toFixed(r === 1 || r === 0 ? 0 : 1)}%`);

/** "USD 10.00 of it refunded" under a gross volume, per currency with refunds; nothing without. */
function RefundedLine({ refunded }: { refunded: Volume }) {
  const parts = CURRENCIES.filter((c) => refunded[c] > 0).map((c) => formatAmount(refunded[c], c));
  return parts.length ? <p className="stat-sub">{parts.join(" and ")} of it refunded</p> : null;
}

/** Every currency that moved, or the first one at zero so the card never stands empty. */
function volumeLines(v: Volume): string[] {
  const moved = CURRENCIES.filter((c) => v[c] > 0);
  return (moved.length ? moved : [CURRENCIES[0]]).map((c) => formatAmount(v[c], c));
}

export function Overview() {
  const trpc = useTRPC();
  const q = useQuery(trpc.overview.get.queryOptions(undefined, { refetchInterval: 60_000 }));
  const [currency, setCurrency] = useState<Currency>("USD");

  if (q.isPending) return <Loading what="the overview" />;
  if (q.isError && !q.data) return <Failed message={errorMessage(q.error)} retry={() => void q.refetch()} />;
  // Read once, a failed reading again (each minute) keeps the overview shown, and says so.
  const o = q.data!;
  const finished = (c: typeof o.today.counts) => c.succeeded + c.failed + c.expired;
  const weekTotal = PAYMENT_STATUSES.reduce((s, st) => s + o.week.counts[st], 0);

  return (
    <>
      <StaleReading q={q} what="the overview" />
      {o.degradedEndpoints.length > 0 ? (
        <section className="panel attention bad" aria-labelledby="degraded-h">
          <h2 id="degraded-h">
            {o.degradedEndpoints.length === 1 ? "1 webhook endpoint is degraded" : `${o.degradedEndpoints.length} webhook endpoints are degraded`}
          </h2>
          <ul>
            {o.degradedEndpoints.map((e) => (
              <li key={e.id}>
                <code>{e.url}</code> — since {formatWhen(e.degraded_since)}, {e.consecutive_failures} failed attempts in a row
              </li>
            ))}
          </ul>
          <Link href="/dashboard/webhooks">See webhook endpoints</Link>
        </section>
      ) : null}

      <div className="stat-grid">
        <section className="panel" aria-label="Today">
          <p className="stat-label">Today&apos;s gross volume ({o.today.date})</p>
          {volumeLines(o.today.volume).map((l) => (
            <p key={l} className="stat-value">
              {l}
            </p>
          ))}
          <p className="stat-sub">{plural(o.today.counts.succeeded, "succeeded payment")}</p>
          <RefundedLine refunded={o.today.refunded} />
        </section>
        <section className="panel" aria-label="Today's success rate">
          <p className="stat-label">Success rate today</p>
          <p className="stat-value">{rate(o.today.successRate)}</p>
          <p className="stat-sub">of {plural(finished(o.today.counts), "finished payment")}</p>
        </section>
        <section className="panel" aria-label="This week">
          <p className="stat-label">This week&apos;s gross volume (since Monday {o.week.from})</p>
          {volumeLines(o.week.volume).map((l) => (
            <p key={l} className="stat-value">
              {l}
            </p>
          ))}
          <p className="stat-sub">{plural(o.week.counts.succeeded, "succeeded payment")}</p>
          <RefundedLine refunded={o.week.refunded} />
        </section>
        <section className="panel" aria-label="This week's success rate">
          <p className="stat-label">Success rate this week</p>
          <p className="stat-value">{rate(o.week.successRate)}</p>
          <p className="stat-sub">of {plural(finished(o.week.counts), "finished payment")}</p>
        </section>
      </div>

      <section className="panel">
        <h2>Payments this week by status</h2>
        {weekTotal === 0 ? (
          <p className="muted">No payments this week yet.</p>
        ) : (
          <ul className="status-counts">
            {PAYMENT_STATUSES.map((s) => (
              <li key={s}>
                <PaymentStatusBadge status={s} /> <Link href={`/dashboard/payments?status=${s}&from=${o.week.from}`}>{count(o.week.counts[s])}</Link>
              </li>
            ))}
          </ul>
        )}
        <p className="hint">Success rate counts finished payments only: payments still being confirmed are neither success nor failure.</p>
      </section>

      <section className="panel">
        <div className="section-head">
          <h2>Succeeded volume, last 14 days</h2>
          <label className="hint">
            Currency{" "}
            <select value={currency} onChange={(e) => setCurrency(e.target.value as Currency)}>
              {CURRENCIES.map((c) => (
                <option key={c}>{c}</option>
              ))}
            </select>
          </label>
        </div>
        <VolumeChart days={o.days} currency={currency} />
      </section>

      <section className={`panel${o.unresolved.count ? " attention" : ""}`} aria-labelledby="unresolved-h">
        <h2 id="unresolved-h">
          Unresolved payments {o.unresolved.count ? `(${count(o.unresolved.count)})` : ""}
        </h2>
        {o.unresolved.count === 0 ? (
          <p className="muted">None: every payment has an outcome or is still within its confirmation window.</p>
        ) : (
          <>
            <p className="hint">The provider never confirmed these within 24 hours. Check with the customer or the provider, then resolve each one.</p>
            <DataTable
              columns={["Reference", { label: "Amount", num: true }, "Status", "Unresolved since"]}
              rows={o.unresolved.recent}
              row={(p) => (
                <tr key={p.id}>
                  <td className="ref-cell">
                    <Link href={`/dashboard/payments/${p.id}`}>
                      <MiddleClip text={p.reference} />
                    </Link>
                  </td>
                  <td className="num">
                    <AmountWithFee payment={p} />
                  </td>
                  <td>
                    <PaymentStatusBadge status={p.status} />
                  </td>
                  <td>{formatWhen(p.status_transitions.unresolved_at)}</td>
                </tr>
              )}
            />
            {o.unresolved.count > o.unresolved.recent.length ? (
              <p>
                <Link href="/dashboard/payments?status=unresolved">All {count(o.unresolved.count)} unresolved payments</Link>
              </p>
            ) : null}
          </>
        )}
      </section>
    </>
  );
}
