"use client";

import { unstable_rethrow } from "next/navigation";
import { Component, useActionState, useEffect, useRef, useState, type ReactNode } from "react";
import { formatCountdown, formatHarareTime, PHASE_IS_FINAL, secondsLeft, successRedirect, takesAnotherAttempt } from "@/server/domain/hosted";
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
  const { page, serverNow, adopt, offline } = useFollowedPage(initial);
  const key = useSentAttempt(page, attemptKey, adopt);
  const attempt = page.attempt;
  const canPay = takesAnotherAttempt(page.state, attempt?.phase);
  return (
    <>
      {/* Always there, so that what changes inside it is announced (a region that appears with its text is not). */}
      <div aria-live="polite">
        {attempt ? <AttemptStatus key={attempt.id} page={page} attempt={attempt} serverNow={serverNow} /> : page.state !== "open" ? <ClosedPage page={page} /> : null}
        {offline ? (
          <p className="card offline">
            This page cannot reach us: check your connection. Your payment may still go through; this page shows the outcome once you are back
            online.
          </p>
        ) : null}
      </div>
      {canPay ? <PayForm page={page} action={action} attemptKey={key} retry={attempt !== null} /> : null}
    </>
  );
}

/** What this browser sent from a page: the attempt's key, and its payment once the page has seen it. */
type SentAttempt = { key: string; at: number; paymentId?: string };

/** Older attempts are not looked for: a day covers a reload, a dropped connection, a reopened link. */
const SENT_ATTEMPT_TTL_MS = 24 * 3_600_000;

const sentAttemptName = (pageId: string) => `mari.attempt.${pageId}`;

function readSentAttempt(pageId: string): SentAttempt | null {
  try {
    const sent = JSON.parse(localStorage.getItem(sentAttemptName(pageId)) ?? "null") as SentAttempt | null;
    return sent && typeof sent.key === "string" && Date.now() - sent.at < SENT_ATTEMPT_TTL_MS ? sent : null;
  } catch {
    return null; // storage refused (private mode) or garbled: nothing remembered
  }
}

function writeSentAttempt(pageId: string, sent: SentAttempt): void {
  try {
    localStorage.setItem(sentAttemptName(pageId), JSON.stringify(sent));
  } catch {
    // Without storage a reload forgets the attempt, as before.
  }
}

/**
 * The key the form sends, and what the page does with the last attempt this browser sent from it.
 * Pay is tapped on a phone whose connection may drop before the answer arrives: the attempt may
 * have reached us and prompted the phone, but the page never learnt it. So the key is kept before
 * it is sent; on the next load the page asks for that attempt and shows it (a prompt still on the
 * phone, a payment already made) instead of a fresh form that would charge again. An attempt
 * that never arrived leaves its key to the form, so sending it again is the same attempt.
 */
function useSentAttempt(page: HostedPage, freshKey: string, adopt: (view: HostedPage) => void): string {
  const [key, setKey] = useState(freshKey);
  const first = useRef({ page, adopt });

  useEffect(() => {
    const { page: shown, adopt: show } = first.current;
    const sent = readSentAttempt(shown.id);
    // Nothing sent from here, or what was sent is what the page shows: nothing to ask.
    if (!sent || (sent.paymentId !== undefined && sent.paymentId === shown.attempt?.id)) return;
    let stopped = false;
    void (async () => {
      // Offline: no view, the form keeps its key, and sending it again finds the attempt if it arrived.
      const view = await askStatus(`${shown.status_path.split("?")[0]}?attempt=${encodeURIComponent(sent.key)}`).catch(() => null);
      const found = view?.attempt;
      if (stopped || !view || !found) {
        if (!stopped && sent.paymentId === undefined) setKey(sent.key);
        return;
      }
      writeSentAttempt(shown.id, { ...sent, paymentId: found.id });
      // Shown instead of what the page shows when it is newer, and the page would otherwise offer
      // to pay again while it is under way, or has nothing else for this customer. A finished
      // attempt on a page that takes another payment stays a memory.
      const newer = !shown.attempt || Date.parse(found.created_at) > Date.parse(shown.attempt.created_at);
      const worthShowing = !PHASE_IS_FINAL[found.phase] || shown.state !== "open" || shown.attempt !== null;
      if (found.id === shown.attempt?.id || !newer || !worthShowing) return;
      show(view);
      if (view.kind === "payment_link") window.history.replaceState(null, "", `?payment=${found.id}`);
    })();
    return () => {
      stopped = true;
    };
  }, []);

  return key;
}

/** Polls in a row that got no answer before the page says it is offline (one lost poll is a mobile network's normal). */
const OFFLINE_AFTER = 2;

/** The page's view from its status route; throws when there is no answer (offline, or not 200). */
async function askStatus(path: string): Promise<HostedPage> {
  const res = await fetch(path, { cache: "no-store", headers: { accept: "application/json" } });
  if (!res.ok) throw new Error(`status ${res.status}`);
  return (await res.json()) as HostedPage;
}

/**
 * The page as the server last described it, polled while an attempt is under way, and the
 * server's clock as this phone can best tell it (so a countdown is right when the phone's is not).
 */
function useFollowedPage(initial: HostedPage): { page: HostedPage; serverNow: number; adopt: (view: HostedPage) => void; offline: boolean } {
  const [page, setPage] = useState(initial);
  const [unanswered, setUnanswered] = useState(0);
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
          const next = await askStatus(page.status_path);
          // The answer's time stands for the middle of the round trip.
          offset.current = Date.parse(next.server_time) - (sent + Date.now()) / 2;
          if (!stopped) {
            setPage(next);
            setUnanswered(0);
          }
        } catch {
          // A dropped request on a mobile network: the next poll tries again, and a few in a row are said.
          if (!stopped) setUnanswered((n) => n + 1);
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

  return { page, serverNow, adopt: setPage, offline: following && unanswered >= OFFLINE_AFTER };
}

/** A page that takes no payment, with nothing of this customer's to show: why, and the way back. */
function ClosedPage({ page }: { page: HostedPage }) {
  return (
    <section className="card">
      <h2>{page.state === "complete" ? "Already paid" : page.state === "link_used" ? "Link already used" : "No longer available"}</h2>
      <p>{page.notice}</p>
      <ReturnLink page={page} />
    </section>
  );
}

function ReturnLink({ page }: { page: HostedPage }) {
  return page.cancel_url ? (
    <p>
      <a href={page.cancel_url}>Return to {page.merchant_name}</a>
    </p>
  ) : null;
}

function AttemptStatus({ page, attempt, serverNow }: { page: HostedPage; attempt: HostedAttempt; serverNow: number }) {
  const amount = formatAmount(attempt.charged_amount, attempt.currency);
  const wallet = attempt.network_name ?? "your wallet provider";
  // Focus follows the attempt, so that a screen reader starts at its news and not at the page's top.
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => heading.current?.focus(), []);
  const closed = page.state !== "open";
  return (
    <section className="card status" data-phase={attempt.phase}>
      {attempt.phase === "waiting" ? (
        <>
          <h2 ref={heading} tabIndex={-1}>
            Check your phone and enter your PIN
          </h2>
          <p>
            We sent a prompt for <strong>{amount}</strong> to <strong className="msisdn">{attempt.msisdn_masked}</strong> ({wallet}).
          </p>
          <Countdown expiresAt={attempt.expires_at} serverNow={serverNow} />
        </>
      ) : attempt.phase === "confirming" ? (
        <>
          <h2 ref={heading} tabIndex={-1}>
            Confirming your payment
          </h2>
          <p>
            We are confirming with {wallet} whether your payment of <strong>{amount}</strong> from{" "}
            <strong className="msisdn">{attempt.msisdn_masked}</strong> went through. <strong>Do not pay again.</strong>
          </p>
          {attempt.status === "unresolved" ? (
            <p className="muted">
              This is taking longer than usual. You can close this page: {page.merchant_name} will see the outcome as soon as we have it. If
              you need to ask them about it, quote reference <strong>{attempt.reference}</strong>.
            </p>
          ) : (
            <p className="muted">This usually takes less than a minute. This page updates by itself.</p>
          )}
        </>
      ) : attempt.phase === "succeeded" ? (
        <Receipt page={page} attempt={attempt} heading={heading} />
      ) : (
        <>
          <h2 ref={heading} tabIndex={-1}>
            {attempt.phase === "failed" ? "Payment not completed" : "The prompt expired"}
          </h2>
          {/* On a closed page nothing can be tried again here: the notice says what can. */}
          <p>
            {closed
              ? "You have not been charged."
              : (attempt.failure_message ?? "The PIN prompt was not approved in time. You have not been charged.")}
          </p>
          {closed ? (
            <>
              <p>{page.notice}</p>
              <ReturnLink page={page} />
            </>
          ) : null}
        </>
      )}
    </section>
  );
}

/** Time left to approve the prompt, by the server's clock. Past zero it waits for the provider's word. */
function Countdown({ expiresAt, serverNow }: { expiresAt: string; serverNow: number }) {
  const left = secondsLeft(Date.parse(expiresAt), serverNow);
  // Each second's tick is not news: the live region around the status leaves it out.
  return left > 0 ? (
    <p className="countdown" aria-live="off">
      Time left to approve: <span role="timer">{formatCountdown(left)}</span>
    </p>
  ) : (
    <p className="countdown">Waiting for your wallet provider to confirm…</p>
  );
}

function Receipt({ page, attempt, heading }: { page: HostedPage; attempt: HostedAttempt; heading: React.RefObject<HTMLHeadingElement | null> }) {
  const next = page.success_url ? successRedirect(page.success_url, page.id) : null;
  useEffect(() => {
    if (!next) return;
    // Replaced, not pushed: Back from the merchant's page goes past this receipt, not into it again.
    const t = setTimeout(() => window.location.replace(next), REDIRECT_MS);
    return () => clearTimeout(t);
  }, [next]);
  return (
    <>
      <h2 ref={heading} tabIndex={-1}>
        Payment received
      </h2>
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

/** The connection dropped while Pay was on its way: the attempt may have started, and sending it again is safe. */
const UNREACHABLE =
  "We could not reach the payment service. Check your connection and tap Pay again: if your first tap got through, you will see that payment, not a second one.";

/**
 * Catches what the pay action throws when its answer never arrives (the action itself answers
 * every error of ours as form state): the form again, with the number and what to do. The action
 * stays the server's own function, so that without JavaScript the form still posts to it.
 */
class LostAnswer extends Component<{ children: (lost: PayFormState | null) => ReactNode; typed: () => string }, { error: unknown }> {
  override state = { error: null as unknown };

  static getDerivedStateFromError(error: unknown) {
    return { error };
  }

  // The subtree that threw is mounted afresh, so each loss starts the form again from this state.
  override render() {
    if (this.state.error === null) return this.props.children(null);
    unstable_rethrow(this.state.error); // the framework's own (a redirect) is not ours to catch
    return this.props.children({ msisdn: this.props.typed(), error: { code: "network_error", message: UNREACHABLE, param: null } });
  }
}

function PayForm(props: { page: HostedPage; action: Props["action"]; attemptKey: string; retry: boolean }) {
  const typed = useRef("");
  return (
    <LostAnswer typed={() => typed.current}>
      {(lost) => <PayFormFields {...props} initial={lost ?? INITIAL_PAY_FORM_STATE} onTyped={(n) => (typed.current = n)} />}
    </LostAnswer>
  );
}

function PayFormFields({
  page,
  action,
  attemptKey,
  retry,
  initial,
  onTyped,
}: {
  page: HostedPage;
  action: Props["action"];
  attemptKey: string;
  retry: boolean;
  initial: PayFormState;
  onTyped: (number: string) => void;
}) {
  const [state, formAction, pending] = useActionState(action, initial);
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
          return;
        }
        // Kept before it is sent: if the answer is lost, the next load asks what became of it.
        writeSentAttempt(page.id, { key: attemptKey, at: Date.now() });
        onTyped(typed);
      }}
    >
      <input type="hidden" name="attempt_key" value={attemptKey} />
      <input type="hidden" name="quoted" value={page.quote.charged_amount} />
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
