import type { FailureCode, PaymentStatus } from "./payment-status";
import { HARARE_OFFSET_MS } from "./harare-time";
import { formatAmount, type Currency } from "./money";
import { findUnstorable } from "./unstorable";

/**
 * What the customer on a hosted page is told about their attempt. `unknown` and `unresolved` are
 * `confirming`: the money may have moved, so the page never says failed and never invites a
 * second payment while the provider has not answered.
 */
export type AttemptPhase = "waiting" | "confirming" | "succeeded" | "failed" | "expired";

export const ATTEMPT_PHASE = {
  awaiting_customer: "waiting",
  unknown: "confirming",
  unresolved: "confirming",
  succeeded: "succeeded",
  failed: "failed",
  expired: "expired",
} as const satisfies Record<PaymentStatus, AttemptPhase>;

/** Phases after which nothing changes: the page stops polling and offers what comes next. */
export const PHASE_IS_FINAL = {
  waiting: false,
  confirming: false,
  succeeded: true,
  failed: true,
  expired: true,
} as const satisfies Record<AttemptPhase, boolean>;

/**
 * How long after an attempt expired a provider's late confirmation is still looked for (the
 * customer entered the PIN as the prompt ran out): the page keeps following the expired attempt,
 * and a new attempt on the same checkout session or single-use link first asks the provider about
 * it (reconfirmExpiredAttempts).
 */
export const LATE_CONFIRMATION_WINDOW_MS = 15 * 60_000;

/** An expired attempt, told to the customer: true in the usual case, and no promise the provider may still break. */
export const EXPIRED_ATTEMPT_MESSAGE = "The PIN prompt timed out before the payment was confirmed. If you did not enter your PIN, nothing was taken from your wallet.";

/** Whether a page showing this attempt still asks about it: an expired one, for a while, in case it is confirmed late. */
export function watchesForLateConfirmation(attempt: { phase: AttemptPhase; expires_at: string } | null | undefined, serverNow: string): boolean {
  return attempt?.phase === "expired" && Date.parse(serverNow) < Date.parse(attempt.expires_at) + LATE_CONFIRMATION_WINDOW_MS;
}

/**
 * How many of the attempt keys a browser sent from one page it may ask about at once
 * (`…/status?attempt=…&attempt=…`): the keys it kept for that page, newest first.
 */
export const MAX_ATTEMPT_KEYS = 5;

/**
 * Whether a key sent as a page's attempt key could be one: 1–255 characters of text PostgreSQL
 * can keep (no NUL, no lone surrogate). Any other, however it came, names no attempt.
 */
export function isAttemptKey(key: string): boolean {
  return key.length >= 1 && key.length <= 255 && findUnstorable(key) === null;
}

/**
 * The cookie in which the server keeps the attempt keys this browser made payments with on a
 * link, on the link's page only (path `/pay/{id}`, so its page and status route): added by the pay
 * action when it answers with a payment, and by a look-up by key (`…/status?attempt=`) that finds
 * one. Only that browser holds them, so they tell its own finished attempts from anyone else's,
 * with JavaScript or without (viewPaymentLinkPage).
 */
export const OWN_ATTEMPTS_COOKIE = "mari.attempts";

/** How long a payer's browser keeps seeing its receipts on a link that takes many payments. */
export const OWN_ATTEMPTS_MAX_AGE_S = 30 * 24 * 3600;

/** The shape of the keys the pages issue (UUIDs): a cookie keeps them as they are, and no other. */
const KEEPABLE_ATTEMPT_KEY = /^[0-9A-Za-z-]{1,64}$/;

/** The keys OWN_ATTEMPTS_COOKIE holds, newest first; anything else in it is dropped. */
export function parseOwnAttemptKeys(raw: string | undefined): string[] {
  return (raw ?? "")
    .split(".")
    .filter((key) => KEEPABLE_ATTEMPT_KEY.test(key))
    .slice(0, MAX_ATTEMPT_KEYS);
}

/** `key` made a payment: first among the kept keys, once, the oldest beyond MAX_ATTEMPT_KEYS forgotten. */
export function withOwnAttemptKey(keys: readonly string[], key: string): string[] {
  if (!KEEPABLE_ATTEMPT_KEY.test(key)) return [...keys];
  return [key, ...keys.filter((k) => k !== key)].slice(0, MAX_ATTEMPT_KEYS);
}

/** The cookie's value for `keys` (parseOwnAttemptKeys reads it back). */
export const formatOwnAttemptKeys = (keys: readonly string[]): string => keys.join(".");

/** A hosted page's state: `open` takes a payment; the others are pages without a form. */
export type HostedPageState = "open" | "link_used" | "link_expired" | "complete" | "expired";

/**
 * Whether an open page takes another attempt: none made yet, or the last one failed or expired
 * (the form again). While an attempt is waiting or confirming, or once one is paid, it does not.
 */
export function takesAnotherAttempt(state: HostedPageState, phase: AttemptPhase | undefined): boolean {
  return state === "open" && (phase === undefined || phase === "failed" || phase === "expired");
}

/** Why a payment failed, told to the person who pays (the API's `failure_message` is for merchants). */
export const CUSTOMER_FAILURE_MESSAGES = {
  insufficient_funds: "Your wallet does not hold enough money for this payment. You have not been charged: top up and try again.",
  declined: "Your wallet provider declined the payment. You have not been charged.",
  customer_cancelled: "The payment was cancelled on your phone. You have not been charged.",
  wallet_not_found: "No wallet was found for this number. Check the number and try again.",
  push_rejected: "Your wallet provider could not send the PIN prompt to this number. Check the number and try again.",
  limit_exceeded: "This payment is over your wallet's limit. Try a smaller amount or contact your provider.",
  resolved_as_failed: "Your wallet provider confirmed that this payment did not go through. You have not been charged.",
} as const satisfies Record<FailureCode, string>;

/** A fallback for a failed payment without a code (it should not happen; the page still needs words). */
export const GENERIC_FAILURE_MESSAGE = "The payment did not go through. You have not been charged.";

/**
 * Why an attempt failed, on a page that takes no other (its notice says what can be done): the
 * reason's first sentence, without the advice to try again that may follow it, and that nothing
 * was taken.
 */
export function closedPageFailureMessage(message: string | null): string {
  const reason = message?.split(/(?<=\.) /)[0];
  return reason ? `${reason} You have not been charged.` : "You have not been charged.";
}

/** Whole seconds left until `expiresAt` by the server's clock, never negative. */
export function secondsLeft(expiresAtMs: number, serverNowMs: number): number {
  return Math.max(0, Math.ceil((expiresAtMs - serverNowMs) / 1000));
}

/**
 * An amount as a hosted page shows it: `formatAmount`'s words, held together by a no-break space,
 * so that a narrow phone never puts the currency at a line's end and the number on the next.
 */
export function formatPageAmount(amount: number, currency: Currency): string {
  return formatAmount(amount, currency).replaceAll(" ", "\u00a0");
}

/** `m:ss` for a countdown. */
export function formatCountdown(seconds: number): string {
  const s = Math.max(0, Math.floor(seconds));
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, "0")}`;
}

/**
 * Where a checkout sends the customer once paid: the merchant's `success_url`, with
 * `{CHECKOUT_SESSION_ID}` replaced by the session's id so the merchant's page can look it up.
 */
export function successRedirect(successUrl: string, sessionId: string): string {
  return successUrl.replaceAll("{CHECKOUT_SESSION_ID}", encodeURIComponent(sessionId));
}

/**
 * The way back to the merchant from a checkout that will not be paid here: its `cancel_url`, or
 * without one the home page of the site its `success_url` is on. Null for a link (it has neither).
 */
export function returnToMerchant(page: { cancel_url: string | null; success_url: string | null }): string | null {
  if (page.cancel_url) return page.cancel_url;
  if (!page.success_url) return null;
  try {
    return `${new URL(page.success_url).origin}/`;
  } catch {
    return null;
  }
}

const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"] as const;

/**
 * A receipt's time in Harare, e.g. `22 Nov 2026, 07:30 CAT`. Computed rather than left to Intl,
 * so the server's render and the phone's are the same string whatever ICU data each has.
 */
export function formatHarareTime(iso: string): string {
  const d = new Date(Date.parse(iso) + HARARE_OFFSET_MS);
  const two = (n: number) => String(n).padStart(2, "0");
  return `${d.getUTCDate()} ${MONTHS[d.getUTCMonth()]} ${d.getUTCFullYear()}, ${two(d.getUTCHours())}:${two(d.getUTCMinutes())} CAT`;
}
