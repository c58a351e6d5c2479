import { findUnstorable } from "./unstorable";

/** Roles of merchant staff. */
export const STAFF_ROLES = ["admin", "developer", "viewer"] as const;
export type StaffRole = (typeof STAFF_ROLES)[number];

/**
 * What each role may do in the dashboard. `viewer` reads; `developer` also manages keys and
 * endpoints, replays events and refunds; `admin` does everything, staff and settings included.
 */
export const ROLE_RANK = { viewer: 0, developer: 1, admin: 2 } as const satisfies Record<StaffRole, number>;

export function roleAllows(role: StaffRole, needed: StaffRole): boolean {
  return ROLE_RANK[role] >= ROLE_RANK[needed];
}

/** The dashboard's test/live switch, as a cookie: `live`, or anything else for test. */
export const MODE_COOKIE = "mari_mode";
/** The most calls one dashboard request may batch (a page's queries go together; the server refuses more). */
export const MAX_BATCH_SIZE = 10;

/**
 * The mode a dashboard tab's page was drawn in, sent with each of its calls: the cookie is one for
 * every tab, so after a switch in another tab this one's calls would act in the other environment
 * under its own banner. A call whose page mode is not the cookie's is refused (PRECONDITION_FAILED).
 */
export const PAGE_MODE_HEADER = "x-mari-page-mode";
export const modeName = (livemode: boolean) => (livemode ? "live" : "test");
/** The payments export link's mode (`test` or `live`): the page's, which the test/live cookie may no longer be. */
export const EXPORT_MODE_PARAM = "mode";
/** Set by proxy.ts on page requests: the page's path and query, to come back to after signing in. */
export const PAGE_PATH_HEADER = "x-mari-page-path";

/** The sign-in page, coming back to `path` after (a dashboard path only: never another site). */
export function signInPath(path: string | null): string {
  return path?.startsWith("/dashboard") ? `/dashboard/sign-in?callbackUrl=${encodeURIComponent(path)}` : "/dashboard/sign-in";
}

/**
 * What a dashboard session cookie carries beyond the staff id, set once at sign-in: when it signed
 * in, and the staff member's last revocation then (a password change or reset, or signing out
 * everywhere; 0 for none).
 */
export type SessionMarks = { signedInAt?: unknown; revocation?: unknown; sessionId?: unknown };

export function revocationStamp(sessionsRevokedAt: Date | null): number {
  return sessionsRevokedAt?.getTime() ?? 0;
}

/**
 * Whether a session still signs its staff member in: signed in less than `maxAgeMs` ago however
 * often it was renewed since, and with no revocation after it (compared for equality, so the
 * servers' clocks need not agree). A cookie without the marks (made before they were kept) does not.
 */
export function sessionStillValid(marks: SessionMarks, sessionsRevokedAt: Date | null, now: Date, maxAgeMs: number): boolean {
  const { signedInAt, revocation, sessionId } = marks;
  if (typeof signedInAt !== "number" || typeof revocation !== "number" || typeof sessionId !== "string") return false;
  const age = now.getTime() - signedInAt;
  return age >= -60_000 && age <= maxAgeMs && revocation === revocationStamp(sessionsRevokedAt);
}

/**
 * A login is a business (its slug) and an e-mail address, both in any case: the same address may
 * sign in to several businesses, each with its own password. Sign-in budgets and known browsers
 * are kept per login, so a password one business holds for an address buys nothing at another.
 */
export function loginKey(business: string, email: string): LoginKey {
  return `${loginPart(business)}\n${loginPart(email)}` as LoginKey;
}

/** A business or an e-mail address as a login compares it: trimmed, in lower case. */
export function loginPart(typed: string): string {
  return typed.trim().toLowerCase();
}

/** The longest business name sign-in reads (slugs are at most 40 characters). */
export const BUSINESS_INPUT_MAX = 100;
/** The longest e-mail address there can be. */
export const EMAIL_INPUT_MAX = 320;

/**
 * Whether a typed business and e-mail address could name a login: neither empty nor longer than
 * any could be, and text PostgreSQL can hold (no NUL, no lone surrogate). Anything else is no
 * one's, and sign-in refuses it before counting it against a budget or asking the database.
 */
export function couldBeLogin(business: string, email: string): boolean {
  const b = loginPart(business);
  const e = loginPart(email);
  return b.length > 0 && b.length <= BUSINESS_INPUT_MAX && e.length > 0 && e.length <= EMAIL_INPUT_MAX && findUnstorable([b, e]) === null;
}

/** A loginKey: typed apart from a bare e-mail address, which no longer names a login alone. */
export type LoginKey = string & { readonly __login: unique symbol };

/**
 * The dashboard's procedures whose answer is streamed (their progress, then their result): the
 * page's client sends them over tRPC's streaming link, the rest over the plain batching one.
 */
export const STREAMED_PROCEDURES: ReadonlySet<string> = new Set(["events.replayWindow"]);
