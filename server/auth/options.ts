import type { NextAuthOptions } from "next-auth";
import CredentialsProvider from "next-auth/providers/credentials";
import { getDb } from "@/db/client";
import { systemClock } from "@/server/clock";
import { passwordStamp } from "@/server/domain/staff";
import { env } from "@/server/env";
import { consumeSignInAttempt, forgetSignInFailures } from "@/server/rate-limit";
import { log } from "@/server/log";
import { authenticateStaff } from "@/server/services/staff/authenticate-staff";
import { authSecret } from "./secret";

/** Errors the sign-in page knows how to word (next-auth passes the thrown message through). */
export const SIGN_IN_ERRORS = {
  CredentialsSignin: "That e-mail address and password do not match.",
  rate_limited: "Too many sign-in attempts. Wait a few minutes and try again.",
  not_configured: "Sign-in is not configured: set NEXTAUTH_SECRET on the server.",
} as const;

function clientAddress(headers: Record<string, unknown> | undefined): string | null {
  const forwarded = headers?.["x-forwarded-for"];
  const first = typeof forwarded === "string" ? forwarded.split(",")[0]?.trim() : undefined;
  return first || (typeof headers?.["x-real-ip"] === "string" ? (headers["x-real-ip"] as string) : null);
}

/**
 * Staff sign in with e-mail and password (credentials), into a JWT session cookie that carries
 * the staff id and when their password was last changed; every request loads the staff member
 * again (currentStaff), and a cookie from before the last change no longer signs anyone in.
 */
export function authOptions(): NextAuthOptions {
  const secret = authSecret() ?? undefined;
  return {
    secret,
    session: { strategy: "jwt", maxAge: env().SESSION_MAX_AGE_HOURS * 3600 },
    pages: { signIn: "/dashboard/sign-in", error: "/dashboard/sign-in" },
    providers: [
      CredentialsProvider({
        name: "Email",
        credentials: { email: { label: "E-mail", type: "email" }, password: { label: "Password", type: "password" } },
        async authorize(credentials, req) {
          if (!secret) throw new Error("not_configured");
          const email = String(credentials?.email ?? "");
          const limit = await consumeSignInAttempt(email, clientAddress(req?.headers));
          if (!limit.ok) {
            log.warn("sign-in rate limited", { retryAfterSeconds: limit.retryAfterSeconds });
            throw new Error("rate_limited");
          }
          const staff = await authenticateStaff({ db: await getDb(), clock: systemClock }, { email, password: String(credentials?.password ?? "") });
          if (!staff) return null;
          await forgetSignInFailures(email);
          return { id: staff.id, email: staff.email, passwordStamp: passwordStamp(staff.passwordChangedAt) };
        },
      }),
    ],
    callbacks: {
      jwt({ token, user }) {
        if (user) {
          token.sub = user.id;
          token.passwordStamp = (user as { passwordStamp?: number }).passwordStamp ?? 0;
        }
        return token;
      },
      session({ session, token }) {
        // Cookies from before password stamps were kept name a password never changed since.
        return { ...session, staffId: token.sub, passwordStamp: typeof token.passwordStamp === "number" ? token.passwordStamp : 0 };
      },
    },
  };
}
