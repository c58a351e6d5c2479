"use client";

import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import { Failed, Loading } from "@/components/ui/states";
import type { FeeBearer } from "@/server/domain/fees";
import { PAYMENT_EXPIRY_MAX_SECONDS, PAYMENT_EXPIRY_MIN_SECONDS } from "@/server/domain/merchant-settings";
import { ErrorNote, Problem, RoleNote, useRole, useSingleFlightMutation } from "../kit";
import { errorMessage, useTRPC } from "../trpc";
import { settingsChanges } from "./changes";

const minutes = (s: number) => (s % 60 === 0 ? `${s / 60} min` : s < 60 ? `${s} s` : `${Math.floor(s / 60)} min ${s % 60} s`);

export function Settings() {
  const trpc = useTRPC();
  const q = useQuery(trpc.settings.get.queryOptions());
  const { role, allowed } = useRole("admin");
  if (q.isPending) return <Loading what="settings" />;
  if (q.isError) return <Failed message={errorMessage(q.error)} retry={() => void q.refetch()} />;
  return (
    <section className="panel">
      <p className="hint" style={{ marginTop: 0 }}>
        These apply to {q.data.merchant.name} in both test and live mode, for payments created from now on.
      </p>
      <SettingsForm feeBearer={q.data.fee_bearer} expiry={q.data.payment_expiry_seconds} canEdit={allowed} />
      {allowed ? null : <RoleNote needed="admin" role={role} />}
    </section>
  );
}

function SettingsForm({ feeBearer, expiry, canEdit }: { feeBearer: FeeBearer; expiry: number; canEdit: boolean }) {
  const trpc = useTRPC();
  const qc = useQueryClient();
  const [bearer, setBearer] = useState<FeeBearer>(feeBearer);
  const [seconds, setSeconds] = useState(String(expiry));
  // What the form started from: only what was changed from it is sent (settingsChanges).
  const [from, setFrom] = useState({ bearer: feeBearer, seconds: String(expiry) });
  const dirty = bearer !== from.bearer || seconds !== from.seconds;
  // Newer settings read by the page (another admin saved): shown, unless this form is being edited.
  const [read, setRead] = useState({ feeBearer, expiry });
  if (read.feeBearer !== feeBearer || read.expiry !== expiry) {
    setRead({ feeBearer, expiry });
    if (!dirty) {
      setBearer(feeBearer);
      setSeconds(String(expiry));
      setFrom({ bearer: feeBearer, seconds: String(expiry) });
    }
  }
  const [problem, setProblem] = useState<string | null>(null);
  const [saved, setSaved] = useState(false);
  const update = useSingleFlightMutation(
    trpc.settings.update.mutationOptions({
      onSuccess: (stored) => {
        // The form shows what was stored, which is what every other page now reads.
        setBearer(stored.fee_bearer);
        setSeconds(String(stored.payment_expiry_seconds));
        setFrom({ bearer: stored.fee_bearer, seconds: String(stored.payment_expiry_seconds) });
        setSaved(true);
        void qc.invalidateQueries({ queryKey: trpc.settings.pathKey() });
      },
    }),
  );
  const submit = (e: FormEvent) => {
    e.preventDefault();
    setSaved(false);
    const n = /^\d+$/.test(seconds.trim()) ? Number(seconds.trim()) : Number.NaN;
    if (!Number.isInteger(n) || n < PAYMENT_EXPIRY_MIN_SECONDS || n > PAYMENT_EXPIRY_MAX_SECONDS) {
      setProblem(`Payment expiry must be a whole number of seconds from ${PAYMENT_EXPIRY_MIN_SECONDS} to ${PAYMENT_EXPIRY_MAX_SECONDS}.`);
      return;
    }
    setProblem(null);
    update.mutate(settingsChanges(from, { bearer, seconds }));
  };
  const n = Number(seconds);
  return (
    <form className="form-grid" onSubmit={submit} noValidate>
      <fieldset className="choices bare inline" disabled={!canEdit}>
        <legend>Who pays the fee</legend>
        <label>
          <input type="radio" name="fee_bearer" checked={bearer === "merchant"} onChange={() => setBearer("merchant")} /> The merchant (deducted from the payout)
        </label>
        <label>
          <input type="radio" name="fee_bearer" checked={bearer === "customer"} onChange={() => setBearer("customer")} /> The customer (added to the amount charged)
        </label>
      </fieldset>
      <label>
        Payment expiry, in seconds
        <input
          type="number"
          inputMode="numeric"
          min={PAYMENT_EXPIRY_MIN_SECONDS}
          max={PAYMENT_EXPIRY_MAX_SECONDS}
          step={1}
          value={seconds}
          onChange={(e) => setSeconds(e.target.value)}
          disabled={!canEdit}
          aria-describedby="expiry-hint"
        />
      </label>
      <span id="expiry-hint" className="hint">
        How long a customer has to approve the PIN prompt ({PAYMENT_EXPIRY_MIN_SECONDS}–{PAYMENT_EXPIRY_MAX_SECONDS} s)
        {Number.isInteger(n) && n > 0 ? `: ${minutes(n)}` : ""}.
      </span>
      <Problem text={problem} />
      <ErrorNote error={update.error} />
      {saved ? (
        <p className="notice" role="status">
          Saved.
        </p>
      ) : null}
      {canEdit ? (
        <div>
          <button type="submit" className="primary" disabled={update.isPending}>
            {update.isPending ? "Saving…" : "Save settings"}
          </button>
        </div>
      ) : null}
    </form>
  );
}
