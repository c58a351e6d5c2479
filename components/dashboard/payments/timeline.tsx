import Link from "next/link";
import { DataTable } from "@/components/ui/data-table";
import { Badge, PaymentStatusBadge } from "@/components/ui/status-badge";
import { formatAmount, type Currency } from "@/server/domain/money";
import { when } from "./format";
import type { TimelineEntry } from "./types";

const DELIVERY_TONE = { pending: "wait", delivered: "good", failed: "bad" } as const;
const REFUND_TONE = { pending: "wait", succeeded: "good", failed: "bad" } as const;

/**
 * Everything that happened to the payment, oldest first. `endpointUrl`: an endpoint's URL by its
 * id, to name it as its own page does (the id while unknown).
 */
export function PaymentTimelineList({
  entries,
  currency,
  paymentId,
  endpointUrl,
}: {
  entries: TimelineEntry[];
  currency: Currency;
  paymentId: string;
  endpointUrl?: (id: string) => string | undefined;
}) {
  // Events with an entry of their own (with their deliveries): a state change does not name them again.
  const listed = new Set(entries.flatMap((e) => (e.kind === "event" ? [e.event.id] : [])));
  return (
    <ol className="pay-timeline">
      {entries.map((e) => (
        <li key={keyOf(e)} className={`pay-tl-${e.kind}`}>
          <time dateTime={e.at} className="pay-tl-time">
            {when(e.at)}
          </time>
          <div className="pay-tl-body">
            <Entry e={e} currency={currency} paymentId={paymentId} endpointUrl={endpointUrl} listed={listed} />
          </div>
        </li>
      ))}
    </ol>
  );
}

function keyOf(e: TimelineEntry): string {
  switch (e.kind) {
    case "state":
      return `state:${e.to}`;
    case "event":
      return e.event.id;
    case "delivery":
      return e.delivery.id;
    case "refund":
      return e.refund.id;
  }
}

const eventLink = (id: string) => (
  <Link href={`/dashboard/events/${id}`}>
    <code>{id}</code>
  </Link>
);

function Entry({
  e,
  currency,
  paymentId,
  endpointUrl,
  listed,
}: {
  e: TimelineEntry;
  currency: Currency;
  paymentId: string;
  endpointUrl?: (id: string) => string | undefined;
  listed: ReadonlySet<string>;
}) {
  switch (e.kind) {
    case "state":
      return (
        <>
          <p className="pay-tl-head">
            {e.from === null ? (
              <>
                Created: <PaymentStatusBadge status={e.to} />
              </>
            ) : (
              <>
                State <PaymentStatusBadge status={e.from} /> → <PaymentStatusBadge status={e.to} />
              </>
            )}
          </p>
          {e.reason ? (
            <p>
              Resolved by {e.by ?? "a former team member"}: “{e.reason}”
            </p>
          ) : null}
          {e.event && !listed.has(e.event) ? <p className="muted">Fired event {eventLink(e.event)}</p> : null}
        </>
      );
    case "event":
      return (
        <p className="pay-tl-head">
          Event <strong>{e.event.type}</strong> {eventLink(e.event.id)}
          {e.event.object !== paymentId ? <span className="muted"> about {e.event.object}</span> : null}
        </p>
      );
    case "delivery": {
      const d = e.delivery;
      return (
        <>
          <p className="pay-tl-head">
            Webhook <strong>{d.event_type}</strong> to{" "}
            <Link href={`/dashboard/webhooks/${d.endpoint}`} title={d.endpoint}>
              {endpointUrl?.(d.endpoint) ?? <code>{d.endpoint}</code>}
            </Link>{" "}
            <Badge tone={DELIVERY_TONE[d.status]}>{d.status}</Badge>
            {d.reason === "replay" ? <span className="muted"> (replay)</span> : null}
          </p>
          <p className="muted">
            <code>{d.id}</code> of event {eventLink(d.event)}
            {d.next_attempt_at ? <> · next attempt {when(d.next_attempt_at)}</> : null}
          </p>
          {d.attempts.length === 0 ? (
            <p className="muted">No attempts yet.</p>
          ) : (
            <DataTable
              columns={["Attempt", "At", { label: "Status", num: true }, { label: "Latency", num: true }, "Error"]}
              rows={d.attempts}
              row={(a, i) => (
                <tr key={a.attempted_at + i}>
                  <td>{i + 1}</td>
                  <td>
                    <time dateTime={a.attempted_at}>{when(a.attempted_at)}</time>
                  </td>
                  <td className={`num${a.status_code !== null && a.status_code >= 200 && a.status_code < 300 ? "" : " error"}`}>{a.status_code ?? "—"}</td>
                  <td className="num">{a.latency_ms} ms</td>
                  <td className="pay-tl-error">{a.error ?? "—"}</td>
                </tr>
              )}
            />
          )}
        </>
      );
    }
    case "refund": {
      const r = e.refund;
      return (
        <>
          <p className="pay-tl-head">
            Refund of <strong>{formatAmount(r.amount, currency)}</strong> <Badge tone={REFUND_TONE[r.status]}>{r.status}</Badge>
            {r.reason ? <span className="muted"> · {r.reason.replace(/_/g, " ")}</span> : null}
          </p>
          <p className="muted">
            <code>{r.id}</code>
            {r.failure_message ? <span className="error"> · {r.failure_message}</span> : null}
          </p>
        </>
      );
    }
  }
}
