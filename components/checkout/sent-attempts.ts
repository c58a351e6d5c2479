import { MAX_ATTEMPT_KEYS } from "@/server/domain/hosted";

/**
 * What this browser sent from one hosted page (localStorage, `mari.attempt.{page id}`), newest
 * first: each Pay's attempt key, kept before it is sent, and the payment it made once the page has
 * learnt it. A list, not one entry: a second tab's Pay that was refused (the first had used the
 * link) made no payment, and must not make the browser forget the one that did.
 */
export type SentAttempt = {
  key: string;
  /** When Pay was tapped (this phone's clock: only ever compared with itself). */
  at: number;
  /** The payment the key made, once a look-up found it. */
  paymentId?: string;
  /** That payment had an outcome when last seen: nothing left to look up on a page that takes another. */
  done?: boolean;
};

/** Older attempts are not looked for: a day covers a reload, a dropped connection, a reopened link (and a key answers for 24 h). */
export const SENT_ATTEMPT_TTL_MS = 24 * 3_600_000;

export const sentAttemptsName = (pageId: string) => `mari.attempt.${pageId}`;

function isSentAttempt(value: unknown): value is SentAttempt {
  if (typeof value !== "object" || value === null) return false;
  const a = value as Record<string, unknown>;
  return typeof a.key === "string" && a.key.length > 0 && typeof a.at === "number" && (a.paymentId === undefined || typeof a.paymentId === "string");
}

/** The kept list from storage's text (also the single entry earlier pages kept); garbled or stale entries are dropped. */
export function parseSentAttempts(raw: string | null, now: number): SentAttempt[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw ?? "null");
  } catch {
    return [];
  }
  const entries = Array.isArray(parsed) ? parsed : parsed === null ? [] : [parsed];
  return entries
    .filter(isSentAttempt)
    .filter((a) => now - a.at < SENT_ATTEMPT_TTL_MS)
    .sort((a, b) => b.at - a.at)
    .slice(0, MAX_ATTEMPT_KEYS);
}

/** Pay tapped with `key`: kept beside what was sent before, never in its place. Sending a key again changes nothing. */
export function withSent(list: readonly SentAttempt[], key: string, now: number): SentAttempt[] {
  if (list.some((a) => a.key === key)) return [...list];
  return [{ key, at: now }, ...list].slice(0, MAX_ATTEMPT_KEYS);
}

/**
 * What a look-up by the `asked` keys answered: the newest payment one of them made, or none. That
 * key now names its payment, and the keys sent before it are forgotten (what they made, if
 * anything, is older than what the page shows). Keys sent after it made no payment yet, and are
 * kept: one may still be on its way. Found nothing: asked keys that named a payment are forgotten,
 * as their payment no longer answers to them.
 */
export function withAnswer(
  list: readonly SentAttempt[],
  asked: readonly string[],
  found: { key: string; paymentId: string; done: boolean } | null,
): SentAttempt[] {
  if (!found) return list.filter((a) => !(asked.includes(a.key) && a.paymentId !== undefined));
  const at = list.findIndex((a) => a.key === found.key);
  if (at < 0) return [...list];
  return list.flatMap((a, i) => {
    if (i === at) return [{ ...a, paymentId: found.paymentId, done: found.done }];
    return i > at && asked.includes(a.key) ? [] : [a];
  });
}

/** The payment `paymentId` has an outcome now (the page followed it there). */
export function withDone(list: readonly SentAttempt[], paymentId: string): SentAttempt[] {
  return list.map((a) => (a.paymentId === paymentId ? { ...a, done: true } : a));
}

/**
 * The keys to ask the page's status route about, or none when there is nothing to learn: every
 * key kept names its payment, and the newest is the one the page shows, or has an outcome on a page
 * that takes another payment (a finished attempt there stays a memory).
 */
export function keysToAsk(list: readonly SentAttempt[], shown: { open: boolean; attemptId: string | null }): string[] {
  const [newest] = list;
  if (!newest) return [];
  if (list.every((a) => a.paymentId !== undefined)) {
    if (newest.paymentId === shown.attemptId) return [];
    if (newest.done && shown.open && shown.attemptId === null) return [];
  }
  return list.map((a) => a.key);
}

/**
 * The key a new form on the page sends: the newest kept when no payment is known for it (its
 * answer was lost, or it never arrived: sending it again is the same attempt), else `fresh`.
 */
export function formKey(list: readonly SentAttempt[], fresh: string): string {
  const [newest] = list;
  return newest && newest.paymentId === undefined ? newest.key : fresh;
}

function readRaw(pageId: string): string | null {
  try {
    return localStorage.getItem(sentAttemptsName(pageId));
  } catch {
    return null; // storage refused (private mode): nothing remembered
  }
}

export function readSentAttempts(pageId: string, now = Date.now()): SentAttempt[] {
  return parseSentAttempts(readRaw(pageId), now);
}

/** Read, change and write back at once: another tab may have changed the list since this one read it. */
export function updateSentAttempts(pageId: string, change: (list: SentAttempt[]) => SentAttempt[]): SentAttempt[] {
  const raw = readRaw(pageId);
  const next = change(parseSentAttempts(raw, Date.now()));
  const text = JSON.stringify(next);
  if (text === raw || (raw === null && next.length === 0)) return next;
  try {
    localStorage.setItem(sentAttemptsName(pageId), text);
  } catch {
    // Without storage a reload forgets the attempt, as before.
  }
  return next;
}

/** Where a tab keeps the number it last tapped Pay with on a page (also written by hold-back-script.ts). */
export const typedNumberName = (pageId: string) => `mari.number.${pageId}`;

/**
 * The number this tab last tapped Pay with on a page, kept in sessionStorage (this tab only, gone
 * when it closes), so a form to try again (after a decline, an expiry, or an answer that never
 * came) starts from it.
 */
export function keepTypedNumber(pageId: string, number: string): void {
  try {
    sessionStorage.setItem(typedNumberName(pageId), number);
  } catch {
    // Without storage the form to try again starts empty, as before.
  }
}

export function typedNumberOf(pageId: string): string | null {
  try {
    return sessionStorage.getItem(typedNumberName(pageId));
  } catch {
    return null;
  }
}
