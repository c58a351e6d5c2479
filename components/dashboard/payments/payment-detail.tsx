"use client";

import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useState, type ReactNode } from "react";
import { errorMessage, isMissing, useTRPC } from "@/components/dashboard/trpc";
import { Failed, Loading } from "@/components/ui/states";
import { PaymentStatusBadge } from "@/components/ui/status-badge";
import { sessionReferenceOf } from "@/server/domain/checkout";
import { formatAmount } from "@/server/domain/money";
import { BackToList, RoleUnread, StaleReading, useFormKey } from "../kit";
import { writeFilters } from "./filters";
import { settlesSoon, STATUS_LABEL, when } from "./format";
import { RefundForm, type LostRefund, type RefundDone } from "./refund-form";
import { ResolveForm } from "./resolve-form";
import { deliveryPollMs, useEndpoints } from "../webhooks/common";
import { PaymentTimelineList } from "./timeline";
import type { PaymentView, Timeline } from "./types";
import "./payments.css";


/** /dashboard/payments/{id}: the payment as the API shows it, what happened to it, and what staff may do. */
export function PaymentDetail({ id }: { id: string }) {
  const trpc = useTRPC();
  const me = useQuery(trpc.session.me.queryOptions());
  // Asked again while something on it is still moving (the payment's outcome, a refund), so the page never shows a stale "pending".
  // Its webhooks too: a final payment's deliveries are often still on their way.
  const t = useQuery(trpc.payments.timeline.queryOptions({ id }, { refetchInterval: (q) => timelinePollMs(q.state.data) }));
  const { urlOf } = useEndpoints();
  const [refunded, setRefunded] = useState<RefundDone | null>(null);
  const [refundOutdated, setRefundOutdated] = useState(false);
  const [refundLost, setRefundLost] = useState<LostRefund | null>(null);
  // Kept here, not in the form, which starts afresh whenever what remains changes: a refund whose
  // answer was lost, tried again once the page has read the payment again, is still that refund.
  const refundKey = useFormKey();
  // A resolve refused because the payment was resolved meanwhile (by someone else, or by this
  // member's own earlier try whose answer was lost): said once the page shows who.
  const [resolvedElsewhere, setResolvedElsewhere] = useState(false);

  if (t.isPending) return <Loading what="the payment" />;
  // Once read, a failed reading again keeps the page (and a refund being typed in it), and says so.
  if (t.isError && !t.data) {
    return (
      <section>
        <BackToList list="payments">← Payments</BackToList>
        {isMissing(t.error) ? (
          <div className="warning" role="alert">
            There is no payment {id} in {me.data?.livemode ? "live" : "test"} data. If it is a {me.data?.livemode ? "test" : "live"} payment, switch the
            data mode at the top of the page.
          </div>
        ) : (
          <Failed message={errorMessage(t.error)} retry={() => void t.refetch()} />
        )}
      </section>
    );
  }

  const p = t.data.payment;
  // Who resolved it by hand (an admin's e-mail), once it is resolved; null if no one did or they have left.
  const resolver = t.data.entries.find((e) => e.kind === "state" && e.from === "unresolved");
  const resolvedByMe = resolver?.kind === "state" && resolver.by !== null && resolver.by === me.data?.email;
  return (
    <section>
      <BackToList list="payments">← Payments</BackToList>
      <StaleReading q={t} what="the payment" />
      <h1 className="pay-title">
        <span>{formatAmount(p.amount, p.currency)}</span> <PaymentStatusBadge status={p.status} />
        <small className="muted">{p.reference}</small>
      </h1>
      {p.status === "unknown" ? (
        <p className="notice" role="status">
          The outcome is being confirmed with the provider. This payment has not failed; it settles on its own when the provider answers.
        </p>
      ) : null}
      {p.status === "unresolved" ? (
        <p className="attention" role="status">
          The provider has not confirmed this payment for over 24 hours. Check with the provider, then resolve it below.
        </p>
      ) : null}

      {/* The actions wait for the role, so no one sees a button flip between refused and allowed. */}
      {me.data && p.status === "succeeded" ? (
        <RefundForm
          key={`${p.id}:${t.data.refundable}`}
          payment={p}
          refundable={t.data.refundable}
          role={me.data.role}
          formKey={refundKey.formKey}
          done={refunded && { ...refunded, status: refundStatus(t.data, refunded.id) ?? refunded.status }}
          onDone={(r) => {
            refundKey.renew();
            setRefunded(r);
            setRefundOutdated(false);
            setRefundLost(null);
          }}
          outdated={refundOutdated}
          onOutdated={() => {
            refundKey.renew();
            setRefunded(null);
            setRefundOutdated(true);
            setRefundLost(null);
          }}
          lost={refundLost}
          onLost={(r) => {
            setRefunded(null);
            setRefundLost(r);
          }}
        />
      ) : null}
      {me.data && p.status === "unresolved" ? <ResolveForm payment={p} role={me.data.role} onOutdated={() => setResolvedElsewhere(true)} /> : null}
      {/* Without the role, neither panel can be drawn: said, with a retry, rather than left out. */}
      {!me.data && (p.status === "succeeded" || p.status === "unresolved") ? <RoleUnread /> : null}
      {resolvedElsewhere && p.status !== "unresolved" ? (
        <p className="notice" role="status">
          {resolvedByMe
            ? `Resolved by you: it is now ${STATUS_LABEL[p.status].toLowerCase()}. An earlier try of yours went through, though its answer did not reach this page; nothing more was changed.`
            : `Not resolved by you: someone resolved this payment meanwhile, and it is now ${STATUS_LABEL[p.status].toLowerCase()}. The timeline says who, and why.`}
        </p>
      ) : null}

      <h2>Details</h2>
      <div className="panel">
        <Fields p={p} />
      </div>

      <h2>Timeline</h2>
      {t.data.truncated ? <p className="muted">This payment has more history than fits here: of its refunds, events and deliveries, only the newest 100 of each are shown.</p> : null}
      <PaymentTimelineList entries={t.data.entries} currency={p.currency} paymentId={p.id} endpointUrl={urlOf} />
    </section>
  );
}

function Fields({ p }: { p: PaymentView }) {
  const money = (n: number) => formatAmount(n, p.currency);
  const rows: [string, ReactNode][] = [
    ["ID", <code key="id">{p.id}</code>],
    ["Status", <PaymentStatusBadge key="s" status={p.status} />],
    ["Amount", money(p.amount)],
    ["Fee", `${money(p.fee)} (paid by ${p.fee_bearer})`],
    ["Charged to customer", money(p.charged_amount)],
    ["Refunded", money(p.amount_refunded)],
    ["Currency", p.currency],
    ["Method", p.method],
    ["Reference", p.reference],
    ["Customer number", p.customer.msisdn],
    ["Customer (masked)", p.customer_msisdn_masked],
    ["Failure", p.failure_code ? `${p.failure_code}: ${p.failure_message ?? ""}` : "—"],
    ["Provider reference", p.provider_reference ?? "—"],
    // Where the payment came from, and the way to the other payments made there.
    [
      "Payment link",
      p.payment_link ? (
        <span key="pl">
          <code>{p.payment_link}</code> · <Link href={`/dashboard/payments${writeFilters({ q: p.payment_link })}`}>payments through it</Link>
        </span>
      ) : (
        "—"
      ),
    ],
    [
      "Checkout session",
      p.checkout_session ? (
        <span key="cs">
          <code>{p.checkout_session}</code> ·{" "}
          <Link href={`/dashboard/payments${writeFilters({ q: sessionReferenceOf(p.reference) })}`}>its attempts</Link>
        </span>
      ) : (
        "—"
      ),
    ],
    ["Mode", p.livemode ? "Live" : "Test"],
    ["Created", <time key="c" dateTime={p.created_at}>{when(p.created_at)}</time>],
    // When the prompt stops waiting for the customer: a deadline while it waits, history after.
    [p.status === "awaiting_customer" ? "Expires" : "Prompt expiry", <time key="e" dateTime={p.expires_at}>{when(p.expires_at)}</time>],
    ...(Object.entries(p.status_transitions) as [keyof typeof TRANSITION_LABEL, string | null][])
      .filter(([, at]) => at)
      // In the order they happened (an unresolved payment that succeeded: unresolved first).
      .sort(([, a], [, b]) => Date.parse(a!) - Date.parse(b!))
      .map(([k, at]): [string, ReactNode] => [TRANSITION_LABEL[k], <time key={k} dateTime={at!}>{when(at!)}</time>]),
  ];
  const metadata = Object.entries(p.metadata);
  return (
    <dl className="fields">
      {rows.map(([k, v]) => (
        <div key={k} className="pay-field">
          <dt>{k}</dt>
          <dd>{v}</dd>
        </div>
      ))}
      <div className="pay-field">
        <dt>Metadata</dt>
        <dd>
          {metadata.length === 0 ? (
            "—"
          ) : (
            <ul className="pay-meta">
              {metadata.map(([k, v]) => (
                <li key={k}>
                  <code>{k}</code>: {v}
                </li>
              ))}
            </ul>
          )}
        </dd>
      </div>
    </dl>
  );
}

/** The payment's outcome or one of its refunds is still to come (an unresolved payment waits on people: no asking). */
function timelinePollMs(t: Timeline | undefined): number | false {
  if (!t) return false;
  const moving = settlesSoon(t.payment.status) || t.entries.some((e) => e.kind === "refund" && e.refund.status === "pending");
  const deliveries = deliveryPollMs(t.entries.flatMap((e) => (e.kind === "delivery" ? [e.delivery] : [])));
  return moving ? Math.min(3_000, deliveries || Infinity) : deliveries;
}

/** A refund's status as the timeline last read it. */
function refundStatus(t: Timeline, refundId: string): string | undefined {
  for (const e of t.entries) if (e.kind === "refund" && e.refund.id === refundId) return e.refund.status;
  return undefined;
}

/** Each state change's time, named as the status badges name the states. */
const TRANSITION_LABEL = {
  unknown_at: "Confirming since",
  succeeded_at: "Succeeded at",
  failed_at: "Failed at",
  expired_at: "Expired at",
  unresolved_at: "Unresolved since",
} as const satisfies Record<keyof PaymentView["status_transitions"], string>;
