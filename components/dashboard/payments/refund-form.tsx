"use client";

import { useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { ErrorNote, RefusedAction, cancelOnEscape, useQuestionInPlace, useSingleFlightMutation } from "@/components/dashboard/kit";
import { isOutcomeUnknown, serviceCodeOf, useTRPC } from "@/components/dashboard/trpc";
import { formatAmount, parseMajorAmount, toMajorInput } from "@/server/domain/money";
import { REFUND_REASONS, type RefundReason } from "@/server/domain/refunds";
import { roleAllows, type StaffRole } from "@/server/domain/staff";
import type { PaymentView } from "./types";

/** A refund just made from this page. */
export type RefundDone = { id: string; amount: number; status: string };

/** A refund sent from this page whose answer never came: it may have been made, or not. */
export type LostRefund = { amount: number; reason: RefundReason | undefined };

/**
 * Refund part or all of a succeeded payment (developer or admin); asks once more before it moves
 * money. The form starts afresh after each refund (its parent keys it by what remains), so the
 * refund just made is told through `done`, which the parent keeps. A refund refused because what
 * remains changed meanwhile (another tab, another colleague) is told the same way, through
 * `outdated`: the page reads the payment again, and the form starts afresh from what now remains.
 * A refund whose answer was lost (or was Mari's own error, which can come after the refund was
 * made) is told through `lost`, with a way to send it again under the
 * same key, which finds the refund if it was made: the page reads the payment again meanwhile,
 * and the form starting afresh does not make the question go away.
 */
export function RefundForm({
  payment,
  refundable,
  role,
  formKey,
  done,
  onDone,
  outdated,
  onOutdated,
  lost,
  onLost,
}: {
  payment: PaymentView;
  refundable: number;
  role: StaffRole;
  /** The page's form key (kit `useFormKey`): a double click, or a retry after a lost answer, is one refund. */
  formKey: string;
  done: RefundDone | null;
  onDone: (refund: RefundDone) => void;
  /** The last try was refused: it asked for more than remained, which the page had shown stale. */
  outdated: boolean;
  onOutdated: () => void;
  lost: LostRefund | null;
  onLost: (refund: LostRefund) => void;
}) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [amount, setAmount] = useState(() => toMajorInput(refundable, payment.currency));
  const [reason, setReason] = useState("");
  // Focus follows the question (its Yes button) and comes back to Refund… when it is put away.
  const question = useQuestionInPlace();
  const refund = useSingleFlightMutation(
    trpc.payments.refund.mutationOptions({
      onSuccess: (r) => {
        // The question is answered: a Yes still showing (the form not drawn afresh, what remains
        // read the same) would send a second refund under the key the page has just renewed.
        question.drop();
        onDone({ id: r.id, amount: r.amount, status: r.status });
        void queryClient.invalidateQueries({ queryKey: trpc.payments.pathKey() });
      },
      onError: (e, sent) => {
        // No answer, or Mari's own error (which can come after the refund was made): it may have been made.
        if (isOutcomeUnknown(e)) onLost({ amount: sent.amount!, reason: sent.reason });
        else if (serviceCodeOf(e) === "refund_amount_invalid") onOutdated();
        else return;
        question.drop();
        void queryClient.invalidateQueries({ queryKey: trpc.payments.pathKey() });
      },
    }),
  );
  const send = (r: LostRefund) => refund.mutate({ paymentId: payment.id, amount: r.amount, reason: r.reason, idempotencyKey: formKey });
  // Said by `outdated` in the page's currency, not in the API's minor units, and by `lost` in words that say what to do.
  const refusedError = serviceCodeOf(refund.error) === "refund_amount_invalid" || isOutcomeUnknown(refund.error) ? null : refund.error;

  const money = (n: number) => formatAmount(n, payment.currency);
  const canRefund = roleAllows(role, "developer");
  const parsed = parseMajorAmount(amount, payment.currency);
  const cents = parsed.ok ? parsed.amount : null;
  const invalid = !parsed.ok ? parsed.message : parsed.amount > refundable ? `At most ${money(refundable)} remains refundable.` : null;

  return (
    <div className="panel pay-action">
      <h2>Refund</h2>
      {done ? (
        <p className={done.status === "failed" ? "attention" : "notice"} role="status">
          {done.status === "failed"
            ? `Refund ${done.id} of ${money(done.amount)} failed: nothing was refunded, and the amount can be refunded again. The timeline below says why.`
            : done.status === "succeeded"
              ? `Refund ${done.id} of ${money(done.amount)} is done. It appears in the timeline below.`
              : `Refund ${done.id} of ${money(done.amount)} is being processed by the wallet provider. This page updates when it is done.`}
        </p>
      ) : null}
      {outdated ? (
        <p className="attention" role="alert">
          Nothing was refunded: meanwhile another refund of this payment was made, and your amount was more than remained. What can be refunded now is
          shown below.
        </p>
      ) : null}
      {lost ? (
        <div className="attention" role="alert">
          <p>
            Your refund of {money(lost.amount)} got no answer, or an error from Mari: it may have been made, or not. Send it again to find out. If it was made, you are told so,
            and nothing more is refunded.
          </p>
          <button type="button" onClick={() => send(lost)} disabled={refund.isPending}>
            {refund.isPending ? "Sending…" : "Send it again"}
          </button>
          <ErrorNote error={refusedError} />
        </div>
      ) : null}
      {refundable === 0 ? (
        <p className="muted">Nothing left to refund: the whole amount is refunded or being refunded.</p>
      ) : !canRefund ? (
        <RefusedAction label="Refund…" needed="developer" role={role} doing="Refunding" />
      ) : (
        <form
          className="form-grid"
          onSubmit={(e) => {
            e.preventDefault();
            if (invalid) return;
            if (!question.asking) return question.ask();
            send({ amount: cents!, reason: (reason || undefined) as RefundReason | undefined });
          }}
        >
          <p className="muted">
            {money(refundable)} of {money(payment.amount)} can be refunded. Fees are not refunded.
          </p>
          <label>
            Amount ({payment.currency})
            <input
              inputMode="decimal"
              value={amount}
              onChange={(e) => {
                setAmount(e.target.value);
                question.drop();
              }}
              aria-invalid={invalid !== null}
              aria-describedby="refund-amount-help"
              required
            />
            <span id="refund-amount-help" className={invalid ? "error" : "muted"}>
              {invalid ?? "Defaults to everything that remains."}
            </span>
          </label>
          <label>
            Reason
            <select value={reason} onChange={(e) => setReason(e.target.value)}>
              <option value="">None given</option>
              {REFUND_REASONS.map((r) => (
                <option key={r} value={r}>
                  {r.replace(/_/g, " ")}
                </option>
              ))}
            </select>
          </label>
          {lost ? null : <ErrorNote error={refusedError} />}
          {question.asking && cents !== null ? (
            <div
              className="pay-confirm"
              role="alert"
              onKeyDown={(e) => cancelOnEscape(e, question.putAway, refund.isPending)}
            >
              <p>
                Refund <strong>{money(cents)}</strong> to {payment.customer_msisdn_masked}? This sends money back to the customer&apos;s wallet and cannot be undone.
              </p>
              <button type="submit" className="danger" disabled={refund.isPending} autoFocus>
                {refund.isPending ? "Refunding…" : `Yes, refund ${money(cents)}`}
              </button>{" "}
              <button type="button" onClick={question.putAway} disabled={refund.isPending}>
                Cancel
              </button>
            </div>
          ) : (
            <div>
              <button type="submit" className="primary" disabled={invalid !== null} autoFocus={question.focusAsker}>
                Refund…
              </button>
            </div>
          )}
        </form>
      )}
    </div>
  );
}
