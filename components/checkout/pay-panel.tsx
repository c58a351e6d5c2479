"use client";

import { unstable_rethrow } from "next/navigation";
import { Component, useActionState, useEffect, useLayoutEffect, useRef, useState, type ReactNode } from "react";
import {
  closedPageFailureMessage,
  EXPIRED_ATTEMPT_MESSAGE,
  formatCountdown,
  formatHarareTime,
  formatPageAmount,
  PHASE_IS_FINAL,
  secondsLeft,
  successRedirect,
  takesAnotherAttempt,
  watchesForLateConfirmation,
} from "@/server/domain/hosted";
import { NETWORK_NAMES, networkHint } from "@/server/domain/msisdn-rules";
import { normaliseMsisdnZw } from "@/server/domain/msisdn-zw";
import type { HostedAttempt, HostedPage } from "@/server/schemas/hosted";
import { dropQueryParam } from "@/components/ui/drop-query-param";
import { useHydrated } from "@/components/ui/use-hydrated";
import { useTypedBeforeHydration } from "@/components/ui/use-typed-before-hydration";
import { AMOUNT_CHANGED_PARAM, IN_PROGRESS_PARAM, INITIAL_PAY_FORM_STATE, type PayFormState } from "./pay-form-state";
import { POLL_MS, SLOW_POLL_MS } from "./polling";
import { formKey, keepTypedNumber, keysToAsk, readSentAttempts, typedNumberOf, updateSentAttempts, withAnswer, withDone, withSent } from "./sent-attempts";

/** How long a paid checkout shows its receipt before going on to the merchant. */
const REDIRECT_MS = 3_000;

type Props = {
  initial: HostedPage;
  action: (previous: PayFormState, form: FormData) => Promise<PayFormState>;
  attemptKey: string;
  /** Shown again because the charge changed as Pay was tapped (AMOUNT_CHANGED_PARAM). */
  amountChanged: boolean;
  /** Shown again because Pay was refused: another attempt at the order was under way (IN_PROGRESS_PARAM). */
  refusedInProgress: boolean;
};

/**
 * The hosted pages' one client island: the number form, then the attempt's live status. Server
 * rendered first, so without JavaScript the same markup works (the form posts; the page reloads
 * itself while the attempt is under way).
 */
export function PayPanel({ initial, action, attemptKey, amountChanged, refusedInProgress }: Props) {
  const { page, serverNow, adopt, offline } = useFollowedPage(initial);
  const { key, lookup } = useSentAttempt(page, attemptKey, adopt);
  const attempt = page.attempt;
  const canPay = takesAnotherAttempt(page.state, attempt?.phase);
  const closedPage = !attempt && page.state !== "open";
  // Until the island has run, the page's first script decides (checkout.css): `data-unless-sent`
  // goes, and `data-if-sent` comes, when this browser kept an attempt to look up.
  const early = lookup.phase === "early";
  const checking = lookup.phase === "checking" && (closedPage || (canPay && lookup.holdsForm));
  const formHeld = checking && !closedPage && lookup.failures === 0;
  useEffect(() => {
    if (attempt && PHASE_IS_FINAL[attempt.phase]) updateSentAttempts(page.id, (list) => withDone(list, attempt.id));
  }, [page.id, attempt]);
  // The notice is for this customer, this once: a reload, or the address shared, shows the page without it.
  useEffect(() => {
    if (amountChanged) dropQueryParam(AMOUNT_CHANGED_PARAM);
    if (refusedInProgress) dropQueryParam(IN_PROGRESS_PARAM);
  }, [amountChanged, refusedInProgress]);
  return (
    <>
      {/* A page that takes nothing (expired, deactivated, used by someone else) shows no amount: nothing is owed. */}
      <Summary page={page} amount={!closedPage || page.state === "complete"} />
      {amountChanged && canPay ? (
        <p className="card changed" role="alert">
          The amount changed just as you tapped Pay, so nothing was sent to your phone. Check the amount above, then tap Pay again.
        </p>
      ) : null}
      {/* Said while the attempt that got in first is under way; once it ends, the page shows what follows (its receipt, or the form). */}
      {refusedInProgress && attempt && !PHASE_IS_FINAL[attempt.phase] ? (
        <p className="card changed" role="alert">
          A payment for this order was already under way, from <span className="msisdn">{attempt.msisdn_masked}</span>, so nothing was sent to your
          number. If that payment does not go through, you can pay with your number here.
        </p>
      ) : null}
      {/* Always there, so that what changes inside it is announced (a region that appears with its text is not). */}
      <div aria-live="polite">
        {attempt ? (
          <AttemptStatus key={attempt.id} page={page} attempt={attempt} serverNow={serverNow} early={early} />
        ) : closedPage && !checking ? (
          <ClosedPage page={page} early={early} />
        ) : null}
        {checking || (early && (closedPage || canPay)) ? <CheckingAttempt early={early} failed={lookup.failures > 0} closed={closedPage} /> : null}
        {offline ? (
          <p className="card offline">
            This page cannot reach us: check your connection. Your payment may still go through; this page shows the outcome once you are back
            online.
          </p>
        ) : null}
      </div>
      {canPay && !formHeld ? <PayForm page={page} action={action} attemptKey={key} retry={attempt !== null} resumed={attempt !== null || amountChanged || key !== attemptKey} early={early} /> : null}
    </>
  );
}

/**
 * Who is being paid, for what and how much: the page's quote as its latest answer has it, so the
 * headline and the form's Pay never differ (the merchant may change who bears the fee while the
 * page is open; the next attempt then charges the new amount). Without `amount`, only who and what.
 */
function Summary({ page, amount }: { page: HostedPage; amount: boolean }) {
  const { quote } = page;
  return (
    <header className="summary">
      <p className="merchant">{page.merchant_name}</p>
      <h1 className="title">{page.description}</h1>
      {amount ? <p className="amount">{formatPageAmount(quote.charged_amount, quote.currency)}</p> : null}
      {amount && quote.fee !== null ? (
        <p className="fee">
          {formatPageAmount(quote.amount, quote.currency)} + {formatPageAmount(quote.fee, quote.currency)} transaction fee
        </p>
      ) : null}
    </header>
  );
}

/** Pages this document has sent a Pay from: one shown again after that is showing our answer, so nothing was lost. */
const sentFromHere = new Set<string>();

/** Between look-ups of a kept attempt that got no answer: soon at first, then every 30 s, never giving up. */
const LOOKUP_RETRY_MS = [1_000, 2_000, 4_000, 8_000, 15_000, 30_000] as const;

type Lookup = {
  /** `early` until the island has run (as the server rendered it), `checking` while a kept attempt is looked up. */
  phase: "early" | "checking" | "settled";
  /** Look-ups in a row that got no answer. */
  failures: number;
  /** The form waits for the answer: this page's earlier Pay may have been answered where no one saw it. */
  holdsForm: boolean;
};

/**
 * The key the form sends, and what the page does with the attempts this browser sent from it.
 * Pay is tapped on a phone whose connection may drop before the answer arrives: the attempt may
 * have reached us and prompted the phone, but the page never learnt it. So each key is kept
 * before it is sent (sent-attempts.ts); on the next load the form takes the kept key whose payment
 * is not known (sending it again is the same attempt), and the page asks for those attempts and
 * shows this browser's newest (a prompt still on the phone, a payment already made) instead of a
 * fresh form that would charge again, or "Link already used" to the customer who used it. Until
 * the answer comes it says it is checking; a look-up that fails is asked again, and the form
 * comes back meanwhile with the kept key, so no one is stranded.
 */
function useSentAttempt(page: HostedPage, freshKey: string, adopt: (view: HostedPage) => void): { key: string; lookup: Lookup } {
  const [key, setKey] = useState(freshKey);
  const [lookup, setLookup] = useState<Lookup>({ phase: "early", failures: 0, holdsForm: false });
  const first = useRef({ page, adopt, freshKey });

  // Before the first paint after hydration: the page never shows a form with the wrong key, nor
  // "Link already used", for a frame.
  useLayoutEffect(() => {
    const { page: shown, adopt: show, freshKey: fresh } = first.current;
    // Shown again after this document's own Pay was answered: that answer is what the page shows.
    const answered = sentFromHere.has(shown.id);
    const kept = readSentAttempts(shown.id);
    if (!answered) setKey(formKey(kept, fresh));
    const keys = keysToAsk(kept, { open: shown.state === "open", attemptId: shown.attempt?.id ?? null });
    if (keys.length === 0) {
      setLookup({ phase: "settled", failures: 0, holdsForm: false });
      return;
    }
    setLookup({ phase: "checking", failures: 0, holdsForm: !answered });
    const path = `${shown.status_path.split("?")[0]}?${keys.map((k) => `attempt=${encodeURIComponent(k)}`).join("&")}`;
    let stopped = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const ask = async (failures: number) => {
      const view = await askStatus(path).catch(() => null);
      if (stopped) return;
      if (!view) {
        setLookup((l) => ({ ...l, failures: failures + 1 }));
        timer = setTimeout(() => void ask(failures + 1), LOOKUP_RETRY_MS[Math.min(failures, LOOKUP_RETRY_MS.length - 1)]);
        return;
      }
      const found = view.attempt;
      const known = updateSentAttempts(shown.id, (list) =>
        withAnswer(list, keys, found && view.attempt_key ? { key: view.attempt_key, paymentId: found.id, done: PHASE_IS_FINAL[found.phase] } : null),
      );
      if (!answered) setKey(formKey(known, fresh));
      setLookup({ phase: "settled", failures: 0, holdsForm: false });
      if (!found || found.id === shown.attempt?.id) return;
      // Shown instead of what the page shows when it is newer (ids sort by time), and the page
      // would otherwise offer to pay again while it is under way, has nothing else for this
      // customer, or would hide an outcome this browser has not seen (its answer was lost): a form
      // alone there invites a second payment, and the outcome's page offers one anyway. A finished
      // attempt whose outcome was seen, on a page that takes another payment, stays a memory.
      const newer = !shown.attempt || found.id > shown.attempt.id;
      const seen = kept.some((a) => a.key === view.attempt_key && a.done);
      const worthShowing = !PHASE_IS_FINAL[found.phase] || shown.state !== "open" || shown.attempt !== null || !seen;
      if (!newer || !worthShowing) return;
      show(view);
      if (view.kind === "payment_link") window.history.replaceState(null, "", `?payment=${found.id}`);
    };
    void ask(0);
    return () => {
      stopped = true;
      clearTimeout(timer);
    };
  }, []);

  return { key, lookup };
}

/**
 * Said while the page looks up what became of an attempt this browser sent, instead of a form that
 * could pay again or "Link already used" for the customer who used it. `early`: before the island
 * has run, shown only on a page its first script marked, with a reload link should the island's
 * scripts never arrive (hold-back-script.ts).
 */
function CheckingAttempt({ early, failed, closed }: { early: boolean; failed: boolean; closed: boolean }) {
  return (
    <section className="card" data-if-sent={early ? "" : undefined}>
      <h2>Checking your payment…</h2>
      {failed ? (
        <p>
          We could not check yet: check your connection. This page keeps trying.{" "}
          {closed ? "If you paid, your wallet's messages show it." : "If you tap Pay now, it is the same payment as before, not a second one."}
        </p>
      ) : (
        <p className="muted">You tapped Pay on this page earlier. We are looking up what became of that payment, so that you do not pay twice.</p>
      )}
      {early ? (
        <p data-if-stalled="">
          This page has not finished loading: check your connection, then <a href="">reload the page</a>. Reloading does not pay again.
        </p>
      ) : null}
    </section>
  );
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
  const underWay = phase !== undefined && !PHASE_IS_FINAL[phase];
  // An expired attempt is still asked about, slowly, for a while: if the customer entered the PIN
  // as the prompt ran out, the provider confirms it late, and the page then shows the receipt.
  const lateWatch = watchesForLateConfirmation(page.attempt, page.server_time);
  // A single-use link someone else is paying takes payments again if that payment fails: the form comes back by itself.
  const following = underWay || lateWatch || page.link_in_use;
  const slow = page.attempt?.status === "unresolved" || lateWatch || page.link_in_use;

  useEffect(() => {
    if (!following) return;
    let stopped = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const poll = async () => {
      clearTimeout(timer);
      if (stopped) return;
      if (!document.hidden) {
        const sent = Date.now();
        const path = page.status_path;
        try {
          const next = await askStatus(path);
          // The answer's time stands for the middle of the round trip.
          offset.current = Date.parse(next.server_time) - (sent + Date.now()) / 2;
          if (!stopped) {
            // Unless the page has meanwhile taken up another attempt (a kept one looked up, as
            // this answer was on its way): an answer about what it followed before is stale.
            setPage((shown) => (shown.status_path === path ? next : shown));
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
    if (!underWay) return;
    const started = Date.parse(initial.server_time) - Date.now();
    const tick = () => setServerNow(Date.now() + (offset.current ?? started));
    tick();
    const t = setInterval(tick, 1_000);
    return () => clearInterval(t);
  }, [underWay, initial.server_time]);

  return { page, serverNow, adopt: setPage, offline: underWay && unanswered >= OFFLINE_AFTER };
}

/** A page that takes no payment, with nothing of this customer's to show: why, and the way back. */
function ClosedPage({ page, early }: { page: HostedPage; early: boolean }) {
  return (
    <section className="card" data-unless-sent={early ? "" : undefined}>
      <h2>{page.state === "complete" ? "Already paid" : page.state === "link_used" ? (page.link_in_use ? "Link in use" : "Link already used") : "No longer available"}</h2>
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

/**
 * The time left to approve, by the server's clock. Until the island has run (`early`), the markup
 * also carries the deadline and the time the server drew it, and the page's first script ticks it
 * (hold-back-script.ts): on a slow connection the scripts take many seconds to arrive, and a
 * countdown that holds still meanwhile reads as a page that has hung.
 */
function Countdown({ left, until, drawnAt, early }: { left: number; until: string; drawnAt: string; early: boolean }) {
  return (
    // The first script may have ticked it before hydration: the island's own ticks take over.
    <span role="timer" data-until={early ? until : undefined} data-drawn-at={early ? drawnAt : undefined} suppressHydrationWarning>
      {formatCountdown(left)}
    </span>
  );
}

function AttemptStatus({ page, attempt, serverNow, early }: { page: HostedPage; attempt: HostedAttempt; serverNow: number; early: boolean }) {
  const amount = formatPageAmount(attempt.charged_amount, attempt.currency);
  const wallet = attempt.network_name ?? "your wallet provider";
  // Time left to approve the prompt, by the server's clock.
  const left = secondsLeft(Date.parse(attempt.expires_at), serverNow);
  // Focus follows the attempt, so that a screen reader starts at its news and not at the page's top:
  // each new phase's heading replaces the last one's (waiting → receipt), which took focus with it.
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => heading.current?.focus(), [attempt.phase]);
  const closed = page.state !== "open";
  return (
    <section className="card status" data-phase={attempt.phase}>
      <SecondChargeWarning page={page} />
      {attempt.phase === "waiting" ? (
        <>
          {/* Once the prompt's time is up, asking for the PIN is no use: the provider's word is awaited. */}
          <h2 ref={heading} tabIndex={-1}>
            {left > 0 ? "Check your phone and enter your PIN" : `Waiting for ${wallet} to confirm`}
          </h2>
          <p>
            We sent a prompt for <strong>{amount}</strong> to <strong className="msisdn">{attempt.msisdn_masked}</strong> ({wallet}).
          </p>
          {/* Each second's tick is not news: the live region around the status leaves it out. */}
          {left > 0 ? (
            <p className="countdown" aria-live="off">
              Time left to approve: <Countdown left={left} until={attempt.expires_at} drawnAt={page.server_time} early={early} />
            </p>
          ) : (
            <p>The time to approve it is up. This page shows the outcome as soon as {wallet} tells us.</p>
          )}
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
          {/* A prompt whose sending timed out may still reach the phone, and is good until it expires. */}
          {attempt.status === "unknown" && left > 0 ? (
            <p className="countdown" aria-live="off">
              If a PIN prompt for it shows on your phone, enter your PIN. Time left to approve:{" "}
              <Countdown left={left} until={attempt.expires_at} drawnAt={page.server_time} early={early} />
            </p>
          ) : null}
          {attempt.status === "unresolved" ? (
            <p className="muted">
              This is taking longer than usual. You can close this page: {page.merchant_name} will see the outcome as soon as we have it. If
              you need to ask them about it, quote reference <strong className="quoted-ref">{attempt.reference}</strong>.
            </p>
          ) : (
            <p className="muted">
              Most payments are confirmed within minutes; some take longer. This page updates by itself, and you can close it: {page.merchant_name}{" "}
              will see the outcome as soon as we have it.
            </p>
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
            {attempt.phase === "expired"
              ? `${EXPIRED_ATTEMPT_MESSAGE}${closed ? "" : " You can try again below."}`
              : closed
                ? closedPageFailureMessage(attempt.failure_message)
                : attempt.failure_message}
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

/**
 * One order, two attempts (an expired one confirmed late, just as the customer tried again): the
 * prompt still on the phone must not be approved. Said before anything else about the attempt.
 */
function SecondChargeWarning({ page }: { page: HostedPage }) {
  if (!page.other_attempt) return null;
  const order = page.kind === "checkout_session" ? "order" : "payment link";
  return (
    <p className="card changed" role="alert">
      {page.other_attempt === "paid"
        ? `This ${order} has just been paid${page.kind === "checkout_session" ? ", by an earlier try" : ""}. If a PIN prompt for it shows on your phone, do not enter your PIN.`
        : `If your phone shows another PIN prompt for this ${order}, do not enter your PIN: it is paid.`}
    </p>
  );
}

function Receipt({ page, attempt, heading }: { page: HostedPage; attempt: HostedAttempt; heading: React.RefObject<HTMLHeadingElement | null> }) {
  const next = page.success_url ? successRedirect(page.success_url, page.id) : null;
  // Not while a second prompt is out: the customer reads the warning, and goes on with Continue.
  const goesOnByItself = next !== null && page.other_attempt === null;
  useEffect(() => {
    if (!next || !goesOnByItself) return;
    // Replaced, not pushed: Back from the merchant's page goes past this receipt, not into it again.
    const t = setTimeout(() => window.location.replace(next), REDIRECT_MS);
    return () => clearTimeout(t);
  }, [next, goesOnByItself]);
  return (
    <>
      <h2 ref={heading} tabIndex={-1}>
        Payment received
      </h2>
      <dl className="receipt">
        <dt>Paid</dt>
        <dd>{formatPageAmount(attempt.charged_amount, attempt.currency)}</dd>
        <dt>To</dt>
        <dd>{page.merchant_name}</dd>
        <dt>Reference</dt>
        <dd>{attempt.reference}</dd>
        <dt>Time</dt>
        <dd>{attempt.succeeded_at ? formatHarareTime(attempt.succeeded_at) : "–"}</dd>
        <dt>Wallet reference</dt>
        <dd>{attempt.provider_reference ?? "–"}</dd>
        <dt>From</dt>
        <dd className="msisdn">{attempt.msisdn_masked}</dd>
      </dl>
      {next ? (
        <p>
          {goesOnByItself ? `Taking you back to ${page.merchant_name}… ` : null}
          <a href={next}>Continue</a>
        </p>
      ) : (
        <p className="muted">Keep this page or take a screenshot as your receipt.</p>
      )}
      {/* A link that takes many payments (another child's fees, another ticket): the way on to its form, not a dead end. */}
      {page.pay_again_path ? (
        <p>
          <a href={page.pay_again_path}>Make another payment</a>
        </p>
      ) : null}
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
class LostAnswer extends Component<{ children: (lost: PayFormState | null) => ReactNode; sent: () => Omit<PayFormState, "error"> }, { error: unknown }> {
  override state = { error: null as unknown };

  static getDerivedStateFromError(error: unknown) {
    return { error };
  }

  // The subtree that threw is mounted afresh, so each loss starts the form again from this state.
  override render() {
    if (this.state.error === null) return this.props.children(null);
    unstable_rethrow(this.state.error); // the framework's own (a redirect) is not ours to catch
    // Sending it again is the same attempt, as the message says: the key it went with, not the page's.
    return this.props.children({ ...this.props.sent(), error: { code: "network_error", message: UNREACHABLE, param: null } });
  }
}

/**
 * `resumed`: the form comes back to a customer who tapped Pay here (after an attempt, a charge that
 * changed, or with a kept attempt whose answer never came), and starts from the number this tab
 * tapped it with.
 */
function PayForm(props: { page: HostedPage; action: Props["action"]; attemptKey: string; retry: boolean; resumed: boolean; early: boolean }) {
  const sent = useRef<Omit<PayFormState, "error">>({ msisdn: "", attemptKey: null });
  return (
    <LostAnswer sent={() => sent.current}>
      {(lost) => <PayFormFields {...props} initial={lost ?? INITIAL_PAY_FORM_STATE} onSent={(tapped) => (sent.current = tapped)} />}
    </LostAnswer>
  );
}

function PayFormFields({
  page,
  action,
  attemptKey,
  retry,
  resumed,
  early,
  initial,
  onSent,
}: {
  page: HostedPage;
  action: Props["action"];
  attemptKey: string;
  retry: boolean;
  resumed: boolean;
  early: boolean;
  initial: PayFormState;
  onSent: (tapped: Omit<PayFormState, "error">) => void;
}) {
  const [state, formAction, pending] = useActionState(action, initial);
  // Given back with an answer, the form sends the attempt that answer was about (PayFormState): the
  // page's own key is for a form that has not been sent (useSentAttempt: fresh, or a kept one
  // whose answer never came). Without JavaScript the answer's page is drawn with a fresh key.
  const key = state.attemptKey ?? attemptKey;
  const [edited, setTyped] = useState<string | null>(null);
  // Until the customer types: the number the form came back with, or, coming back to it, the one
  // this tab tapped Pay with (read once hydrated, so the server's empty field and the first render agree).
  const hydrated = useHydrated();
  const typed = edited ?? (state.msisdn || (hydrated && resumed ? typedNumberOf(page.id) : null) || "");
  const field = useRef<HTMLInputElement>(null);
  useTypedBeforeHydration(field, typed, setTyped);
  const [checked, setChecked] = useState<string | null>(null);
  const hint = networkHint(typed);
  const error = checked ?? state.error?.message ?? null;
  // Only a number that is wrong marks the field: a lost answer or a closed link is not the number's fault.
  const invalid = checked !== null || state.error?.code === "msisdn_invalid";
  const charged = formatPageAmount(page.quote.charged_amount, page.quote.currency);
  return (
    <form
      className="card"
      action={formAction}
      noValidate
      data-unless-sent={early ? "" : undefined}
      onSubmit={(e) => {
        // Already on its way: a second tap sends nothing more. (The button is not disabled for
        // this, which would drop the focus of whoever tapped it to the page's top.)
        if (pending) {
          e.preventDefault();
          return;
        }
        // The server's own rules, so the message is the one it would answer, without the wait.
        const result = normaliseMsisdnZw(typed);
        if (!result.ok) {
          e.preventDefault();
          setChecked(result.message);
          field.current?.focus();
          return;
        }
        // Kept before it is sent, beside what was sent before: if the answer is lost, the next load
        // asks what became of it; if it is refused (another tab used the link), the rest still stand.
        updateSentAttempts(page.id, (list) => withSent(list, key, Date.now()));
        keepTypedNumber(page.id, typed);
        sentFromHere.add(page.id);
        onSent({ msisdn: typed, attemptKey: key });
      }}
    >
      <input type="hidden" name="attempt_key" value={key} />
      {/* The attempt the page shows: if this one is refused (the link has been used since), the page comes back to it. */}
      {retry && page.kind === "payment_link" && page.attempt ? <input type="hidden" name="payment" value={page.attempt.id} /> : null}
      <input type="hidden" name="quoted" value={page.quote.charged_amount} />
      <label htmlFor="msisdn">{retry ? "Try again: your mobile money number" : "Your mobile money number"}</label>
      <input
        ref={field}
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
        aria-invalid={invalid ? true : undefined}
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
      <button type="submit" aria-disabled={pending ? true : undefined}>
        {pending ? "Sending the PIN prompt…" : `Pay ${charged}`}
      </button>
      {/* A screen reader hears the wait (the button's new name alone is not announced). */}
      <p role="status" className="sr-only">
        {pending ? "Sending the PIN prompt…" : null}
      </p>
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

/** The sandbox's numbers (README "Sandbox numbers"). */
const TEST_NUMBERS = [
  ["077 000 0001", "succeeds"],
  ["077 000 0002", "is declined"],
  ["077 000 0003", "never answers (expires)"],
  ["077 000 0004", "times out, then succeeds"],
  ["077 000 0005", "stays unconfirmed"],
  ["077 000 0006", "is refused at the prompt"],
] as const;

/** Test mode only: the sandbox's numbers, for whoever is trying the page. */
function TestNumbers() {
  return (
    <details className="muted">
      <summary>Test numbers</summary>
      <ul>
        {TEST_NUMBERS.map(([number, outcome]) => (
          <li key={number}>
            <span className="msisdn">{number}</span> {outcome}
          </li>
        ))}
      </ul>
    </details>
  );
}
