import { randomBytes } from "node:crypto";
import type { NextAuthOptions } from "next-auth";
import CredentialsProvider from "next-auth/providers/credentials";
import { getDb } from "@/db/client";
import { systemClock } from "@/server/clock";
import { couldBeLogin, loginKey, revocationStamp } from "@/server/domain/staff";
import { isServiceError } from "@/server/domain/errors";
import { env } from "@/server/env";
import { trustedClientAddress } from "@/server/http/client-address";
import { consumeSignInAttempt, forgetSignInFailures } from "@/server/rate-limit";
import { log } from "@/server/log";
import { authenticateStaff } from "@/server/services/staff/authenticate-staff";
import { endStaffSession } from "@/server/services/staff/end-staff-session";
import { knownDeviceOf } from "./known-device";
import { sameSiteRedirect } from "./request-guard";
import { authSecret, secureCookies } from "./secret";

/** Errors the sign-in page knows how to word (next-auth passes the thrown message through). */
export const SIGN_IN_ERRORS = {
  CredentialsSignin: "That business, e-mail address and password do not match.",
  rate_limited: "Too many sign-in attempts. Wait a few minutes and try again.",
  busy: "Mari is busy checking other sign-ins. Try again in a few seconds.",
  unavailable: "Mari could not check your sign-in just now. Try again in a moment.",
  not_configured: "Sign-in is not configured: set NEXTAUTH_SECRET on the server.",
} as const;

/**
 * /api/auth/* on PostgreSQL without NEXTAUTH_SECRET: 503 with what to set (in next-auth's own
 * `{ message }` shape), rather than next-auth's 500 about "a problem with the server configuration".
 * The API does not need the secret and keeps serving; the sign-in page says the same.
 */
export function signInNotConfigured(): Response {
  return Response.json({ message: SIGN_IN_ERRORS.not_configured }, { status: 503, headers: { "Cache-Control": "no-store" } });
}


/**
 * One sign-in by credentials: counted against the login's and the address's budgets, then checked.
 * The staff member as next-auth keeps them, or null when the three do not match; throws
 * `rate_limited` (a budget spent) or `busy` (every password check slot taken).
 */
async function signIn(business: string, email: string, password: string, req: { headers?: Record<string, unknown> } | undefined) {
  const login = loginKey(business, email);
  const address = trustedClientAddress(req?.headers?.["x-forwarded-for"]);
  const cookieHeader = req?.headers?.cookie;
  const known = knownDeviceOf(typeof cookieHeader === "string" ? cookieHeader : null, login, systemClock.now());
  const limit = await consumeSignInAttempt(login, address, known);
  if (!limit.ok) {
    log.warn("sign-in rate limited", { retryAfterSeconds: limit.retryAfterSeconds });
    throw new Error("rate_limited");
  }
  const staff = await authenticateStaff({ db: await getDb(), clock: systemClock, clientAddress: address }, { business, email, password, knownBrowser: known !== null }).catch((e: unknown) => {
    // Every password check slot is taken (a flood of attempts): say so rather than "do not match".
    throw isServiceError(e) && e.code === "rate_limited" ? new Error("busy") : e;
  });
  if (!staff) return null;
  await forgetSignInFailures(login, known);
  return { id: staff.id, email: staff.email, revocation: revocationStamp(staff.sessionsRevokedAt) };
}

/**
 * Staff sign in with their business, e-mail and password (credentials), into a JWT session cookie that carries
 * the staff id, when it signed in and the staff member's last revocation of sessions; every
 * request loads the staff member again (currentStaff), and a cookie older than
 * SESSION_MAX_AGE_HOURS, or from before a password change or a sign-out everywhere, no longer
 * signs anyone in.
 */
export function authOptions(): NextAuthOptions {
  const secret = authSecret() ?? undefined;
  return {
    secret,
    useSecureCookies: secureCookies(),
    session: { strategy: "jwt", maxAge: env().SESSION_MAX_AGE_HOURS * 3600 },
    pages: { signIn: "/dashboard/sign-in", error: "/dashboard/sign-in" },
    // next-auth's messages go to the service's log. Its NEXTAUTH_URL warning is left out: without
    // NEXTAUTH_URL, next-auth builds no absolute URL and the dashboard's links stay on the address
    // it was reached at, as intended (README "Configuration"), so the warning would only alarm.
    logger: {
      error: (code, metadata) => {
        const cause = metadata instanceof Error ? metadata : metadata.error;
        log.error("next-auth error", { code, error: cause instanceof Error ? cause : undefined });
      },
      warn: (code) => {
        if (code !== "NEXTAUTH_URL") log.warn("next-auth warning", { code });
      },
      debug: () => {},
    },
    providers: [
      CredentialsProvider({
        name: "Email",
        credentials: {
          business: { label: "Business", type: "text" },
          email: { label: "E-mail", type: "email" },
          password: { label: "Password", type: "password" },
        },
        async authorize(credentials, req) {
          if (!secret) throw new Error("not_configured");
          const business = String(credentials?.business ?? "");
          const email = String(credentials?.email ?? "");
          // No one's login (empty, longer than any, a NUL): no match, and neither a budget's key
          // (a megabyte of it kept 15 minutes) nor a query the database would refuse.
          if (!couldBeLogin(business, email)) return null;
          return signIn(business, email, String(credentials?.password ?? ""), req).catch((e: unknown) => {
            if (e instanceof Error && (e.message === "rate_limited" || e.message === "busy")) throw e;
            // A fault of ours (the database or Redis down): logged, and the page says so. Thrown on,
            // next-auth would put its message (a failed query's SQL) in the address it answers with.
            log.error("sign-in could not be checked", { error: e });
            throw new Error("unavailable");
          });
        },
      }),
    ],
    callbacks: {
      redirect: ({ url, baseUrl }) => sameSiteRedirect(url, baseUrl),
      // At sign-in only (`user` is there): the marks a session is judged by (sessionStillValid).
      // Renewals on later requests keep them as they were.
      jwt({ token, user }) {
        if (user) {
          token.sub = user.id;
          token.sid = randomBytes(18).toString("base64url");
          token.signedInAt = Date.now();
          token.revocation = (user as { revocation?: number }).revocation ?? 0;
        }
        return token;
      },
      session({ session, token }) {
        return { ...session, staffId: token.sub, marks: { signedInAt: token.signedInAt, revocation: token.revocation, sessionId: token.sid } };
      },
    },
    events: {
      // Signing out ends this session on the server too: a copy of its cookie signs no one in.
      async signOut({ token }) {
        const sid = token?.sid;
        if (!token?.sub || typeof sid !== "string" || typeof token.signedInAt !== "number") return;
        const expiresAt = new Date(token.signedInAt + env().SESSION_MAX_AGE_HOURS * 3_600_000);
        await endStaffSession({ db: await getDb(), clock: systemClock }, { staffId: token.sub, sessionId: sid, expiresAt });
      },
    },
  };
}
