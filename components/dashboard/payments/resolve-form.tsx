"use client";

import { useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { ErrorNote, RefusedAction, cancelOnEscape, useQuestionInPlace, useSingleFlightMutation } from "@/components/dashboard/kit";
import { serviceCodeOf, useTRPC } from "@/components/dashboard/trpc";
import { formatAmount } from "@/server/domain/money";
import { roleAllows, type StaffRole } from "@/server/domain/staff";
import type { PaymentView } from "./types";

const MIN_REASON = 5;

/** Close an unresolved payment by hand (admin): the outcome and a reason, kept for audit. */
export function ResolveForm({ payment, role, onOutdated }: { payment: PaymentView; role: StaffRole; onOutdated: () => void }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [outcome, setOutcome] = useState<"succeeded" | "failed" | "">("");
  const [reason, setReason] = useState("");
  // Focus follows the question (its Yes button) and comes back to Resolve… when it is put away.
  const question = useQuestionInPlace();
  const resolve = useSingleFlightMutation(
    trpc.payments.resolve.mutationOptions({
      onSuccess: () => void queryClient.invalidateQueries({ queryKey: trpc.payments.pathKey() }),
      // Resolved meanwhile (another admin, or this one's earlier try whose answer was lost): the
      // page reads the payment again, and says by whom.
      onError: (e) => {
        if (serviceCodeOf(e) !== "parameter_invalid") return;
        onOutdated();
        void queryClient.invalidateQueries({ queryKey: trpc.payments.pathKey() });
      },
    }),
  );
  const ready = outcome !== "" && reason.trim().length >= MIN_REASON;

  return (
    <div className="panel pay-action">
      <h2>Resolve</h2>
      {!roleAllows(role, "admin") ? (
        <RefusedAction label="Resolve…" needed="admin" role={role} doing="Resolving a payment" />
      ) : (
        <form
          className="form-grid"
          onSubmit={(e) => {
            e.preventDefault();
            if (!ready) return;
            if (!question.asking) return question.ask();
            resolve.mutate({ paymentId: payment.id, outcome, reason: reason.trim() });
          }}
        >
          <fieldset className="choices bare">
            <legend>What did the provider say?</legend>
            <label>
              <input type="radio" name="outcome" value="succeeded" checked={outcome === "succeeded"} onChange={() => { setOutcome("succeeded"); question.drop(); }} /> The
              customer paid: mark it succeeded
            </label>
            <label>
              <input type="radio" name="outcome" value="failed" checked={outcome === "failed"} onChange={() => { setOutcome("failed"); question.drop(); }} /> No money
              moved: mark it failed
            </label>
          </fieldset>
          <label>
            Reason (kept with the payment)
            <textarea
              value={reason}
              onChange={(e) => {
                setReason(e.target.value);
                question.drop();
              }}
              rows={3}
              maxLength={500}
              minLength={MIN_REASON}
              required
              placeholder="e.g. EcoCash statement of 12 March shows the debit, ref MP2403…"
              aria-describedby="resolve-reason-help"
            />
            <span id="resolve-reason-help" className="muted">
              {reason.trim().length >= MIN_REASON
                ? "Kept with the payment for audit."
                : `At least ${MIN_REASON} characters${outcome === "" ? ", and an outcome above" : ""}.`}
            </span>
          </label>
          <ErrorNote error={resolve.error} />
          {question.asking && outcome ? (
            <div
              className="pay-confirm"
              role="alert"
              onKeyDown={(e) => cancelOnEscape(e, question.putAway, resolve.isPending)}
            >
              <p>
                Mark this {formatAmount(payment.amount, payment.currency)} payment <strong>{outcome}</strong>? Its webhook event is sent and this cannot be changed
                later.
              </p>
              <button type="submit" className="danger" disabled={resolve.isPending} autoFocus>
                {resolve.isPending ? "Resolving…" : `Yes, mark it ${outcome}`}
              </button>{" "}
              <button type="button" onClick={question.putAway} disabled={resolve.isPending}>
                Cancel
              </button>
            </div>
          ) : (
            <div>
              <button type="submit" className="primary" disabled={!ready} autoFocus={question.focusAsker}>
                Resolve…
              </button>
            </div>
          )}
        </form>
      )}
    </div>
  );
}
