"use client";

import { useActionState, useEffect, useRef, useState } from "react";
import { formatCountdown, formatHarareTime, PHASE_IS_FINAL, secondsLeft, successRedirect } from "@/server/domain/hosted";
import { formatAmount } from "@/server/domain/money";
import { NETWORK_NAMES, networkHint } from "@/server/domain/msisdn-rules";
import { normaliseMsisdnZw } from "@/server/domain/msisdn-zw";
import type { HostedAttempt, HostedPage } from "@/server/schemas/hosted";
import { INITIAL_PAY_FORM_STATE, type PayFormState } from "./pay-form-state";

/** Between two polls of the status route: the "every 2–3 s at most". */
const POLL_MS = 2_500;
/** An unresolved payment waits on people, not seconds: ask less often. */
const SLOW_POLL_MS = 10_000;
/** How long a paid checkout shows its receipt before going on to the merchant. */
const REDIRECT_MS = 3_000;

type Props = {
  initial: HostedPage;
  action: (previous: PayFormState, form: FormData) => Promise<PayFormState>;
  attemptKey: string;
};

/**
 * The hosted pages' one client island: the number form, then the attempt's live status. Server
 * rendered first, so without JavaScript the same markup works (the form posts; the page reloads
 * itself while the attempt is under way).
 */
export function PayPanel({ initial, action, attemptKey }: Props) {
  const { page, serverNow } = useFollowedPage(initial);
  const attempt = page.attempt;
  const canPay = page.state === "open" && (attempt === null || attempt.phase === "failed" || attempt.phase === "expired");
  return (
    <>
      {attempt ? <AttemptStatus page={page} attempt={attempt} serverNow={serverNow} /> : null}
      {canPay ? <PayForm page={page} action={action} attemptKey={attemptKey} retry={attempt !== null} /> : null}
    </>
  );
}

/**
 * The page as the server last described it, polled while an attempt is under way, and the
 * server's clock as this phone can best tell it (so a countdown is right when the phone's is not).
 */
function useFollowedPage(initial: HostedPage): { page: HostedPage; serverNow: number } {
  const [page, setPage] = useState(initial);
  // Until the first answer arrives, the render's own time: the server and the first paint agree.
  const offset = useRef<number | null>(null);
  const [serverNow, setServerNow] = useState(() => Date.parse(initial.server_time));
  const phase = page.attempt?.phase;
  const following = phase !== undefined && !PHASE_IS_FINAL[phase];
  const slow = page.attempt?.status === "unresolved";

  useEffect(() => {
    if (!following) return;
    let stopped = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const poll = async () => {
      clearTimeout(timer);
      if (stopped) return;
      if (!document.hidden) {
        const sent = Date.now();
        try {
          const res = await fetch(page.status_path, { cache: "no-store", headers: { accept: "application/json" } });
          if (res.ok) {
            const next = (await res.json()) as HostedPage;
            // The answer's time stands for the middle of the round trip.
            offset.current = Date.parse(next.server_time) - (sent + Date.now()) / 2;
            if (!stopped) setPage(next);
          }
        } catch {
          // A dropped request on a mobile network: the next poll tries again.
        }
      }
      if (!stopped) timer = setTimeout(poll, slow ? SLOW_POLL_MS : POLL_MS);
    };
    // Ask at once: it also measures the clock before the countdown is trusted.
    void poll();
    const onVisible = () => {
      if (!document.hidden) void poll();
    };
    document.addEventListener("visibilitychange", onVisible);
    return () => {
      stopped = true;
      clearTimeout(timer);
      document.removeEventListener("visibilitychange", onVisible);
    };
  }, [following, slow, page.status_path]);

  useEffect(() => {
    if (!following) return;
    const started = Date.parse(initial.server_time) - Date.now();
    const tick = () => setServerNow(Date.now() + (offset.current ?? started));
    tick();
    const t = setInterval(tick, 1_000);
    return () => clearInterval(t);
  }, [following, initial.server_time]);

  return { page, serverNow };
}

function AttemptStatus({ page, attempt, serverNow }: { page: HostedPage; attempt: HostedAttempt; serverNow: number }) {
  const amount = formatAmount(attempt.charged_amount, attempt.currency);
  const wallet = attempt.network_name ?? "your wallet provider";
  return (
    <section className="card status" aria-live="polite" aria-atomic="true" data-phase={attempt.phase}>
      {attempt.phase === "waiting" ? (
        <>
          <h2>Check your phone and enter your PIN</h2>
          <p>
            We sent a prompt for <strong>{amount}</strong> to <strong className="msisdn">{attempt.msisdn_masked}</strong> ({wallet}).
          </p>
          <Countdown expiresAt={attempt.expires_at} serverNow={serverNow} />
        </>
      ) : attempt.phase === "confirming" ? (
        <>
          <h2>Confirming your payment</h2>
          <p>
            We are confirming with {wallet} whether your payment of <strong>{amount}</strong> from{" "}
            <strong className="msisdn">{attempt.msisdn_masked}</strong> went through. <strong>Do not pay again.</strong>
          </p>
          <p className="muted">
            {attempt.status === "unresolved"
              ? "This is taking longer than usual. You can close this page: the merchant will see the outcome as soon as we have it."
              : "This usually takes less than a minute. This page updates by itself."}
          </p>
        </>
      ) : attempt.phase === "succeeded" ? (
        <Receipt page={page} attempt={attempt} />
      ) : (
        <>
          <h2>{attempt.phase === "failed" ? "Payment not completed" : "The prompt expired"}</h2>
          <p>{attempt.failure_message ?? "The PIN prompt was not approved in time. You have not been charged."}</p>
          {page.state !== "open" ? <p>{page.notice}</p> : null}
        </>
      )}
    </section>
  );
}

/** Time left to approve the prompt, by the server's clock. Past zero it waits for the provider's word. */
function Countdown({ expiresAt, serverNow }: { expiresAt: string; serverNow: number }) {
  const left = secondsLeft(Date.parse(expiresAt), serverNow);
  return left > 0 ? (
    <p className="countdown">
      Time left to approve: <span role="timer">{formatCountdown(left)}</span>
    </p>
  ) : (
    <p className="countdown">Waiting for your wallet provider to confirm…</p>
  );
}

function Receipt({ page, attempt }: { page: HostedPage; attempt: HostedAttempt }) {
  const next = page.success_url ? successRedirect(page.success_url, page.id) : null;
  useEffect(() => {
    if (!next) return;
    const t = setTimeout(() => window.location.assign(next), REDIRECT_MS);
    return () => clearTimeout(t);
  }, [next]);
  return (
    <>
      <h2>Payment received</h2>
      <dl className="receipt">
        <dt>Paid</dt>
        <dd>{formatAmount(attempt.charged_amount, attempt.currency)}</dd>
        <dt>To</dt>
        <dd>{page.merchant_name}</dd>
        <dt>Reference</dt>
        <dd>{attempt.reference}</dd>
        <dt>Time</dt>
        <dd>{attempt.succeeded_at ? formatHarareTime(attempt.succeeded_at) : "–"}</dd>
        <dt>Wallet reference</dt>
        <dd>{attempt.provider_reference ?? "–"}</dd>
        <dt>From</dt>
        <dd>{attempt.msisdn_masked}</dd>
      </dl>
      {next ? (
        <p>
          Taking you back to {page.merchant_name}… <a href={next}>Continue</a>
        </p>
      ) : (
        <p className="muted">Keep this page or take a screenshot as your receipt.</p>
      )}
    </>
  );
}

function PayForm({ page, action, attemptKey, retry }: { page: HostedPage; action: Props["action"]; attemptKey: string; retry: boolean }) {
  const [state, formAction, pending] = useActionState(action, INITIAL_PAY_FORM_STATE);
  const [typed, setTyped] = useState(state.msisdn);
  const [checked, setChecked] = useState<string | null>(null);
  const hint = networkHint(typed);
  const error = checked ?? state.error?.message ?? null;
  const charged = formatAmount(page.quote.charged_amount, page.quote.currency);
  return (
    <form
      className="card"
      action={formAction}
      noValidate
      onSubmit={(e) => {
        // The server's own rules, so the message is the one it would answer, without the wait.
        const result = normaliseMsisdnZw(typed);
        if (!result.ok) {
          e.preventDefault();
          setChecked(result.message);
        }
      }}
    >
      <input type="hidden" name="attempt_key" value={attemptKey} />
      <label htmlFor="msisdn">{retry ? "Try again: your mobile money number" : "Your mobile money number"}</label>
      <input
        id="msisdn"
        name="msisdn"
        type="tel"
        inputMode="tel"
        autoComplete="tel"
        placeholder="077 123 4567"
        required
        value={typed}
        onChange={(e) => {
          setTyped(e.target.value);
          setChecked(null);
        }}
        aria-invalid={error ? true : undefined}
        aria-describedby={error ? "msisdn-hint msisdn-error" : "msisdn-hint"}
      />
      <p id="msisdn-hint" className="hint" aria-live="polite">
        {hint ? NETWORK_NAMES[hint] : "EcoCash, OneMoney or Telecash"}
      </p>
      {error ? (
        <p id="msisdn-error" className="error" role="alert">
          {error}
        </p>
      ) : null}
      <button type="submit" disabled={pending}>
        {pending ? "Sending the PIN prompt…" : `Pay ${charged}`}
      </button>
      <p className="muted">You will get a prompt on your phone to approve {charged} with your PIN.</p>
      {page.livemode ? null : <TestNumbers />}
      {page.cancel_url ? (
        <p>
          <a href={page.cancel_url}>Cancel and return to {page.merchant_name}</a>
        </p>
      ) : null}
    </form>
  );
}

/** Test mode only: the sandbox's numbers (README "Sandbox numbers"), for whoever is trying the page. */
function TestNumbers() {
  return (
    <details className="muted">
      <summary>Test numbers</summary>
      <ul>
        <li>077 000 0001 succeeds</li>
        <li>077 000 0002 is declined</li>
        <li>077 000 0003 never answers (expires)</li>
        <li>077 000 0004 times out, then succeeds</li>
        <li>077 000 0005 stays unconfirmed</li>
        <li>077 000 0006 is refused at the prompt</li>
      </ul>
    </details>
  );
}
