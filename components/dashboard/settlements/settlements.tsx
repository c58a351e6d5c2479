"use client";

import { useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useState } from "react";
import { DataTable } from "@/components/ui/data-table";
import { Pager, type Cursor } from "@/components/ui/pager";
import { count, plural } from "@/components/ui/plural";
import { Empty, Failed, Loading } from "@/components/ui/states";
import { Badge } from "@/components/ui/status-badge";
import { formatAmount } from "@/server/domain/money";
import { SETTLEMENT_STATUSES, type SettlementStatus } from "@/server/domain/settlements";
import {
  ConfirmAction,
  ConfirmPasswordField,
  ErrorNote,
  FilterControls,
  ListView,
  MiddleClip,
  RefusedAction,
  StaleReading,
  confirmPasswordOf,
  forgetConfirmPassword,
  formatWhen,
  useRole,
  useSingleFlightMutation,
} from "../kit";
import { errorMessage, isMissing, useTRPC } from "../trpc";

const STATUS = {
  pending: { tone: "wait", label: "Pending" },
  paid: { tone: "good", label: "Paid" },
  failed: { tone: "bad", label: "Payout failed" },
} as const satisfies Record<SettlementStatus, { tone: "good" | "bad" | "wait" | "neutral"; label: string }>;

export function SettlementStatusBadge({ status }: { status: SettlementStatus }) {
  return <Badge tone={STATUS[status].tone}>{STATUS[status].label}</Badge>;
}

export function SettlementList() {
  const trpc = useTRPC();
  const [cursor, setCursor] = useState<Cursor>({});
  const [status, setStatus] = useState<SettlementStatus | "">("");
  const q = useQuery(trpc.settlements.list.queryOptions({ limit: 20, ...cursor, status: status || undefined }));

  const body = (
    <ListView
      q={q}
      what="settlements"
      empty={status ? `No ${STATUS[status].label.toLowerCase()} batches.` : "No settlement batches yet: succeeded payments are batched daily at midnight (Harare)."}
      paging={{ cursor, onNewest: () => setCursor({}), filtered: Boolean(status) }}
    >
      {(page) => (
          <>
            <DataTable
              columns={["Batch", "Status", { label: "Payout", num: true }, { label: "Gross", num: true }, { label: "Fees", num: true }, { label: "Refunds", num: true }, { label: "Items", num: true }, "Period"]}
              rows={page.data}
              row={(s) => (
                <tr key={s.id}>
                  <td>
                    <Link href={`/dashboard/settlements/${s.id}`}>
                      <code>{s.id}</code>
                    </Link>
                  </td>
                  <td>
                    <SettlementStatusBadge status={s.status} /> {s.awaiting_payout_confirmation ? <span className="hint">awaits confirmation</span> : null}
                  </td>
                  <td className="num">
                    <strong>{formatAmount(s.amount, s.currency)}</strong>
                  </td>
                  <td className="num">{formatAmount(s.gross_amount, s.currency)}</td>
                  <td className="num">{formatAmount(s.fee_total, s.currency)}</td>
                  <td className="num">{formatAmount(s.refund_total, s.currency)}</td>
                  <td className="num">{s.payment_count + s.refund_count}</td>
                  <td className="cell-wrap">
                    {formatWhen(s.period_start)} –<div>{formatWhen(s.period_end)}</div>
                  </td>
                </tr>
              )}
            />
            <Pager ids={page.data.map((s) => s.id)} hasMore={page.hasMore} cursor={cursor} onChange={setCursor} />
          </>
      )}
    </ListView>
  );

  return (
    <>
      <div className="toolbar">
        <FilterControls>
          <label>
            Status
            <select
              value={status}
              onChange={(e) => {
                setStatus(e.target.value as SettlementStatus | "");
                setCursor({});
              }}
            >
              <option value="">All</option>
              {SETTLEMENT_STATUSES.map((s) => (
                <option key={s} value={s}>
                  {STATUS[s].label}
                </option>
              ))}
            </select>
          </label>
        </FilterControls>
      </div>
      {body}
    </>
  );
}

export function SettlementDetail({ id }: { id: string }) {
  const trpc = useTRPC();
  const qc = useQueryClient();
  const { role, allowed } = useRole("admin");
  const q = useQuery(trpc.settlements.get.queryOptions({ id }));
  const confirm = useSingleFlightMutation(trpc.settlements.confirmPayout.mutationOptions({ onSuccess: () => void qc.invalidateQueries({ queryKey: trpc.settlements.pathKey() }) }));

  const back = (
    <p>
      <Link href="/dashboard/settlements">← All settlements</Link>
    </p>
  );
  if (q.isPending) return <Loading what="the settlement" />;
  if (q.isError && (!q.data || isMissing(q.error))) {
    return (
      <>
        {back}
        <Failed
          message={isMissing(q.error) ? `No settlement ${id} in this environment. It may belong to the other mode.` : errorMessage(q.error)}
          retry={isMissing(q.error) ? undefined : () => void q.refetch()}
        />
      </>
    );
  }
  const s = q.data!;
  return (
    <>
      {back}
      <StaleReading q={q} what="the settlement" />
      <section className="panel">
        <dl className="fields">
          <dt>Status</dt>
          <dd>
            <SettlementStatusBadge status={s.status} />
          </dd>
          <dt>Payout</dt>
          <dd>
            <strong>{formatAmount(s.amount, s.currency)}</strong>
          </dd>
          <dt>Gross</dt>
          <dd>
            {formatAmount(s.gross_amount, s.currency)} from {plural(s.payment_count, "payment")}
          </dd>
          <dt>Fees you bore</dt>
          <dd>{formatAmount(s.fee_total, s.currency)}</dd>
          <dt>Refunds</dt>
          <dd>
            {formatAmount(s.refund_total, s.currency)} ({count(s.refund_count)})
          </dd>
          <dt>Period</dt>
          <dd>
            {formatWhen(s.period_start)} – {formatWhen(s.period_end)}
          </dd>
          <dt>Created</dt>
          <dd>{formatWhen(s.created_at)}</dd>
          {s.paid_at ? (
            <>
              <dt>Paid</dt>
              <dd>{formatWhen(s.paid_at)}</dd>
            </>
          ) : null}
          {s.failed_at ? (
            <>
              <dt>Payout failed</dt>
              <dd>
                {formatWhen(s.failed_at)}: {s.failure_message?.replace(/[.\s]+$/, "")}. Its items go into the next batch.
              </dd>
            </>
          ) : null}
        </dl>
      </section>

      {s.awaiting_payout_confirmation ? (
        <section className="panel attention" aria-labelledby="payout-h">
          <h2 id="payout-h">
            Payout awaiting confirmation
          </h2>
          <p className="hint">Confirm once the bank transfer of {formatAmount(s.amount, s.currency)} has reached the merchant&apos;s account. The batch is then marked paid and a settlement.paid event is sent.</p>
          {allowed ? (
            <ConfirmAction
              label="Confirm payout"
              tone="primary"
              question={`Confirm that ${formatAmount(s.amount, s.currency)} was paid out?`}
              confirmLabel="Yes, it was paid"
              pending={confirm.isPending}
              onConfirm={() => confirm.mutate({ id: s.id })}
            />
          ) : (
            <RefusedAction label="Confirm payout" tone="primary" needed="admin" role={role} doing="Confirming a payout" />
          )}
          <ErrorNote error={confirm.error} />
          {allowed ? <FailPayout id={s.id} amount={formatAmount(s.amount, s.currency)} /> : null}
        </section>
      ) : s.livemode && s.status === "paid" && allowed ? (
        <section className="panel" aria-label="Payout returned">
          <FailPayout id={s.id} amount={formatAmount(s.amount, s.currency)} />
        </section>
      ) : s.status === "pending" && !s.livemode ? (
        <p className="notice">Test batches are paid out automatically a few seconds after they are made.</p>
      ) : null}

      <h2>Line items</h2>
      <SettlementLines id={s.id} currency={s.currency} />
    </>
  );
}

/**
 * The bank returned the transfer (before the payout was confirmed, or days after): the batch is recorded as failed and its payments and refunds go
 * into the next batch, which pays them again. Asks why (kept on the batch) and the admin's password.
 */
function FailPayout({ id, amount }: { id: string; amount: string }) {
  const trpc = useTRPC();
  const qc = useQueryClient();
  const fail = useSingleFlightMutation(trpc.settlements.failPayout.mutationOptions({ onSuccess: () => void qc.invalidateQueries({ queryKey: trpc.settlements.pathKey() }) }));
  return (
    <details>
      <summary>The payout bounced?</summary>
      <form
        className="form-grid"
        onSubmit={(e) => {
          e.preventDefault();
          const form = e.currentTarget;
          fail.mutate({ id, reason: String(new FormData(form).get("reason") ?? ""), confirmPassword: confirmPasswordOf(form) }, { onSettled: () => forgetConfirmPassword(form) });
        }}
      >
        <p className="hint">
          Record it only once the bank has returned the {amount}. Its payments and refunds then go into the next batch, which pays them again.
        </p>
        <label>
          What the bank said
          <input name="reason" required maxLength={500} placeholder="e.g. account closed" />
        </label>
        <ConfirmPasswordField refused={fail.error} />
        <div>
          <button type="submit" className="danger" disabled={fail.isPending}>
            {fail.isPending ? "Working…" : "Record payout as failed"}
          </button>
        </div>
        <ErrorNote error={fail.error} passwordField />
      </form>
    </details>
  );
}

function SettlementLines({ id, currency }: { id: string; currency: "USD" | "ZWG" }) {
  const trpc = useTRPC();
  const [cursor, setCursor] = useState<Cursor>({});
  const q = useQuery(trpc.settlements.lines.queryOptions({ id, limit: 25, ...cursor }));
  if (q.isPending) return <Loading what="line items" />;
  if (q.isError && !q.data) return <Failed message={errorMessage(q.error)} retry={() => void q.refetch()} />;
  if (q.data!.data.length === 0) return <Empty>This batch has no line items.</Empty>;
  return (
    <>
      <StaleReading q={q} what="the line items" />
      <DataTable
        columns={["Reference", "Type", { label: "Amount", num: true }, { label: "Fee", num: true }, { label: "Net", num: true }, "Succeeded"]}
        rows={q.data.data}
        row={(l) => (
          <tr key={l.source}>
            <td className="ref-cell">
              {/* The reference is the payment's: a refund's line names the payment it refunded. */}
              <Link href={`/dashboard/payments/${l.payment}`}>
                <MiddleClip text={l.reference} />
              </Link>
              <br />
              <small className="muted">
                <code>{l.source}</code>
              </small>
            </td>
            <td>{l.type === "payment" ? "Payment" : "Refund"}</td>
            <td className="num">{formatAmount(l.amount, currency)}</td>
            <td className="num">{formatAmount(l.fee, currency)}</td>
            <td className="num">{l.net < 0 ? `−${formatAmount(-l.net, currency)}` : formatAmount(l.net, currency)}</td>
            <td>{formatWhen(l.occurred_at)}</td>
          </tr>
        )}
      />
      <Pager ids={q.data.data.map((l) => l.source)} hasMore={q.data.hasMore} cursor={cursor} onChange={setCursor} />
    </>
  );
}
