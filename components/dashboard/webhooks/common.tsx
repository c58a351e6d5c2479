"use client";

import { useQuery, type UseQueryResult } from "@tanstack/react-query";
import type { inferRouterOutputs } from "@trpc/server";
import Link from "next/link";
import { useState } from "react";
import { DataTable } from "@/components/ui/data-table";
import { count } from "@/components/ui/plural";
import { Badge } from "@/components/ui/status-badge";
import type { AppRouter } from "@/server/trpc/routers/_app";
import { formatWhen } from "../kit";
import { useTRPC } from "../trpc";

export type Outputs = inferRouterOutputs<AppRouter>;
export type Endpoint = Outputs["webhooks"]["list"]["data"][number];
export type Delivery = Outputs["webhooks"]["deliveries"]["data"][number];

/** A date as staff read it: Harare time, to the second. */
export const when = (iso: string | null | undefined) => formatWhen(iso);

/** The query of the merchant's endpoints (useEndpoints). */
export type EndpointsQuery = UseQueryResult<Outputs["webhooks"]["list"], unknown>;

/**
 * The merchant's endpoints in this environment (at most 16), and each one's URL by its id: pages
 * that list deliveries name endpoints as the endpoints' own pages do (the id until they load).
 * `list` is the query itself, for a page that must tell "none" from "not read yet" or "not read".
 */
export function useEndpoints(): { endpoints: Endpoint[]; urlOf: (id: string) => string | undefined; list: EndpointsQuery } {
  const trpc = useTRPC();
  const list = useQuery(trpc.webhooks.list.queryOptions({ limit: 100 }));
  const endpoints = list.data?.data ?? [];
  const urls = new Map(endpoints.map((e) => [e.id, e.url]));
  return { endpoints, urlOf: (id) => urls.get(id), list };
}

/**
 * How often a page showing these deliveries asks again: every 2 s while one is due within about a
 * minute and a half (a first send, a retry coming up, one being attempted now, whose lease pushed
 * its time a minute on), every 30 s while the rest wait for later retries, not at all once none is
 * pending. A page left open on an endpoint that keeps failing does not ask every 2 s for a day.
 */
export function deliveryPollMs(deliveries: readonly Pick<Delivery, "status" | "next_attempt_at">[] | undefined): number | false {
  const pending = deliveries?.filter((d) => d.status === "pending") ?? [];
  if (pending.length === 0) return false;
  const soon = Date.now() + 90_000;
  return pending.some((d) => !d.next_attempt_at || Date.parse(d.next_attempt_at) <= soon) ? 2_000 : 30_000;
}

/** What a signing secret shown once says about itself. */
/** The list's query parameter naming an endpoint just deleted, which it says once. */
export const DELETED_PARAM = "deleted";

export const SECRET_WARNING = "Copy it now: this secret will not be shown again. If you lose it, roll the secret to get a new one.";

export function DeliveryStatusBadge({ status }: { status: Delivery["status"] }) {
  const tone = { delivered: "good", failed: "bad", pending: "wait" } as const satisfies Record<Delivery["status"], "good" | "bad" | "wait">;
  return <Badge tone={tone[status]}>{status === "pending" ? "Pending" : status === "delivered" ? "Delivered" : "Failed"}</Badge>;
}

/** Healthy or degraded: degraded shown loud, since it means events are not arriving. */
export function HealthBadge({ endpoint }: { endpoint: Pick<Endpoint, "health" | "degraded_since" | "status"> }) {
  if (endpoint.health === "degraded") {
    return (
      <span className="badge bad health-degraded" title={`Degraded since ${when(endpoint.degraded_since)}`}>
        Degraded
      </span>
    );
  }
  return <Badge tone="good">Healthy</Badge>;
}

export function EndpointStatusBadge({ status }: { status: Endpoint["status"] }) {
  return status === "enabled" ? <Badge tone="neutral">Enabled</Badge> : <Badge tone="wait">Disabled</Badge>;
}

/** "3 of 40 (7.5%)" failed attempts, or a dash when there were none to fail. */
export function failureRate(failures: number, attempts: number): string {
  if (attempts === 0) return "—";
  const pct = (failures / attempts) * 100;
  return `${count(failures)} of ${count(attempts)} (${pct >= 10 || pct === 0 ? pct.toFixed(0) : pct.toFixed(1)}%)`;
}

function lastAttempt(d: Delivery): string {
  const a = d.attempts[d.attempts.length - 1];
  if (!a) return "Not attempted yet";
  return a.status_code !== null ? `HTTP ${a.status_code}${a.error && !a.error.startsWith("HTTP") ? ` · ${a.error}` : ""}` : (a.error ?? "No answer");
}

/**
 * Deliveries, each with its attempts behind a toggle. On an event's page each row names its
 * endpoint (by URL when `endpointUrl` knows it); on an endpoint's page, its event.
 */
export function DeliveriesTable({
  deliveries,
  show,
  endpointUrl,
}: {
  deliveries: Delivery[];
  show: "endpoint" | "event";
  endpointUrl?: (id: string) => string | undefined;
}) {
  return (
    <DataTable
      columns={[show === "endpoint" ? "Endpoint" : "Event", "Status", { label: "Attempts", num: true }, "Last answer", "Created", "Next attempt"]}
      rows={deliveries}
      row={(d) => <DeliveryRow key={d.id} d={d} show={show} endpointUrl={endpointUrl} />}
    />
  );
}

function DeliveryRow({ d, show, endpointUrl }: { d: Delivery; show: "endpoint" | "event"; endpointUrl?: (id: string) => string | undefined }) {
  const [open, setOpen] = useState(false);
  const url = endpointUrl?.(d.endpoint);
  return (
    <>
      <tr>
        <td className={show === "endpoint" ? "url-cell" : undefined}>
          {show === "endpoint" ? (
            <Link href={`/dashboard/webhooks/${d.endpoint}`} title={d.endpoint}>
              {url ?? d.endpoint}
            </Link>
          ) : (
            <Link href={`/dashboard/events/${d.event}`}>
              <code>{d.event_type}</code>
            </Link>
          )}
          {d.reason === "replay" ? <span className="replay-tag muted" title="Sent again by a replay, not when the event happened">(replay)</span> : null}
          {show === "event" ? <div className="muted id-line"><code>{d.event}</code></div> : null}
        </td>
        <td>
          <DeliveryStatusBadge status={d.status} />
        </td>
        <td className="num">
          {d.attempts.length ? (
            <button type="button" className="link-button" aria-expanded={open} onClick={() => setOpen(!open)}>
              {d.attempt_count} {open ? "▴" : "▾"}
            </button>
          ) : (
            d.attempt_count
          )}
        </td>
        <td className="last-answer" title={lastAttempt(d)}>
          {lastAttempt(d)}
        </td>
        <td className="cell-wrap">{when(d.created_at)}</td>
        <td className="cell-wrap">{d.next_attempt_at ? when(d.next_attempt_at) : "—"}</td>
      </tr>
      {open ? (
        <tr className="attempts-row">
          <td colSpan={6}>
            <ol className="attempts">
              {d.attempts.map((a, i) => (
                <li key={`${a.attempted_at}-${i}`}>
                  <span>{when(a.attempted_at)}</span>
                  {a.status_code !== null ? (
                    <Badge tone={a.status_code >= 200 && a.status_code < 300 ? "good" : "bad"}>{`HTTP ${a.status_code}`}</Badge>
                  ) : (
                    <Badge tone="bad">No answer</Badge>
                  )}
                  <span className="muted">{a.latency_ms} ms</span>
                  {a.error ? <span className="error">{a.error}</span> : null}
                  {a.response_body ? <code className="response-body">{a.response_body}</code> : null}
                </li>
              ))}
            </ol>
          </td>
        </tr>
      ) : null}
    </>
  );
}
