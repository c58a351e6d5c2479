import { createHash, createHmac, timingSafeEqual } from "node:crypto";
import { loginKey, loginPart, type LoginKey } from "@/server/domain/staff";
import { authSecret, secureCookies } from "./secret";

/**
 * Known browsers: after a sign-in, the browser keeps a cookie naming the login it signed in to (a
 * business and an address: loginKey), signed with the sessions' secret. A later sign-in to that
 * login from that browser spends a budget of the browser's own (consumeSignInAttempt), so someone
 * guessing a member's password elsewhere locks out their guesses, not the member. It is not a
 * session: it signs no one in.
 */
export const KNOWN_DEVICE_MAX_AGE_SECONDS = 180 * 24 * 3600;

export function knownDeviceCookieName(secure: boolean): string {
  return secure ? "__Secure-mari.known-device" : "mari.known-device";
}

const mac = (secret: string, body: string) => createHmac("sha256", `mari known device\0${secret}`).update(body).digest("base64url");

/** The cookie's value for a browser that just signed in to `login` (loginKey): the login and the time, signed. */
export function knownDeviceToken(login: LoginKey, now: Date, secret: string): string {
  const body = `${Buffer.from(login).toString("base64url")}.${now.getTime()}`;
  return `${body}.${mac(secret, body)}`;
}

/**
 * The key of the budget a sign-in to `login` spends from the browser that sent `token`: that
 * browser's own when we signed the token for this login within KNOWN_DEVICE_MAX_AGE_SECONDS;
 * otherwise null (the login's budget).
 */
export function knownDeviceKey(token: string | undefined, login: LoginKey, now: Date, secret: string): string | null {
  if (!token || token.length > 1024) return null;
  const [address, at, signature, ...rest] = token.split(".");
  if (!address || !at || !signature || rest.length > 0) return null;
  const expected = Buffer.from(mac(secret, `${address}.${at}`));
  const given = Buffer.from(signature);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null;
  if (Buffer.from(address, "base64url").toString() !== login) return null;
  const age = now.getTime() - Number(at);
  if (!Number.isFinite(age) || age < -60_000 || age > KNOWN_DEVICE_MAX_AGE_SECONDS * 1000) return null;
  return `device:${createHash("sha256").update(token).digest("base64url").slice(0, 32)}`;
}

/** One cookie's value from a Cookie header. */
export function cookieValue(header: string | null | undefined, name: string): string | undefined {
  for (const part of (header ?? "").split(";")) {
    const eq = part.indexOf("=");
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}

/** The known-device budget of a sign-in request's browser for `login`, or null. */
export function knownDeviceOf(cookieHeader: string | null | undefined, login: LoginKey, now: Date): string | null {
  const secret = authSecret();
  return secret ? knownDeviceKey(cookieValue(cookieHeader, knownDeviceCookieName(secureCookies())), login, now, secret) : null;
}

/**
 * The business a browser last signed in to, which the sign-in page fills in (HttpOnly: only the
 * page's server reads it). It names a business the browser's user belongs to, nothing more.
 */
export const LAST_BUSINESS_COOKIE = "mari.business";
const LAST_BUSINESS_MAX_AGE_SECONDS = 365 * 24 * 3600;

const SIGN_IN_PATH = /\/api\/auth\/callback\/credentials$/;
const SESSION_COOKIE = /^(__Secure-)?next-auth\.session-token(\.\d+)?=[^;]+/;

/** A Set-Cookie line for the cookies Mari sets itself: HttpOnly, SameSite=Lax, Secure over https. */
export const cookieLine = (name: string, value: string, path: string, maxAge: number, secure: boolean) =>
  [`${name}=${value}`, `Path=${path}`, `Max-Age=${maxAge}`, "HttpOnly", "SameSite=Lax", ...(secure ? ["Secure"] : [])].join("; ");

/**
 * Around next-auth's handler: a sign-in whose answer sets a session also makes the browser known
 * for the login it signed in to (the cookie goes only to /api/auth), and remembers its business
 * for the sign-in page (the cookie goes only to that page).
 */
export async function withKnownDevice(req: Request, now: Date, respond: (req: Request) => Promise<Response>): Promise<Response> {
  if (req.method !== "POST" || !SIGN_IN_PATH.test(new URL(req.url).pathname)) return respond(req);
  const form = await req.clone().formData().catch(() => null);
  const business = form?.get("business");
  const email = form?.get("email");
  const res = await respond(req);
  const secret = authSecret();
  if (!secret || typeof business !== "string" || typeof email !== "string" || !res.headers.getSetCookie().some((c) => SESSION_COOKIE.test(c))) return res;
  const secure = secureCookies();
  const headers = new Headers(res.headers);
  headers.append("set-cookie", cookieLine(knownDeviceCookieName(secure), knownDeviceToken(loginKey(business, email), now, secret), "/api/auth", KNOWN_DEVICE_MAX_AGE_SECONDS, secure));
  headers.append("set-cookie", cookieLine(LAST_BUSINESS_COOKIE, encodeURIComponent(loginPart(business)), "/dashboard/sign-in", LAST_BUSINESS_MAX_AGE_SECONDS, secure));
  return new Response(res.body, { status: res.status, statusText: res.statusText, headers });
}
