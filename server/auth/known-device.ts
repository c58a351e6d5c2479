import { createHash, createHmac, timingSafeEqual } from "node:crypto";
import { authSecret, secureCookies } from "./secret";

/**
 * Known browsers: after a sign-in, the browser keeps a cookie naming the address it signed in as,
 * signed with the sessions' secret. A later sign-in as that address from that browser spends a
 * budget of the browser's own (consumeSignInAttempt), so someone guessing a member's password
 * elsewhere locks out their guesses, not the member. It is not a session: it signs no one in.
 */
export const KNOWN_DEVICE_MAX_AGE_SECONDS = 180 * 24 * 3600;

export function knownDeviceCookieName(secure: boolean): string {
  return secure ? "__Secure-mari.known-device" : "mari.known-device";
}

const normal = (email: string) => email.trim().toLowerCase();
const mac = (secret: string, body: string) => createHmac("sha256", `mari known device\0${secret}`).update(body).digest("base64url");

/** The cookie's value for a browser that just signed in as `email`: the address and the time, signed. */
export function knownDeviceToken(email: string, now: Date, secret: string): string {
  const body = `${Buffer.from(normal(email)).toString("base64url")}.${now.getTime()}`;
  return `${body}.${mac(secret, body)}`;
}

/**
 * The key of the budget a sign-in as `email` spends from the browser that sent `token`: that
 * browser's own when we signed the token for this address within KNOWN_DEVICE_MAX_AGE_SECONDS;
 * otherwise null (the address's budget).
 */
export function knownDeviceKey(token: string | undefined, email: string, now: Date, secret: string): string | null {
  if (!token || token.length > 1024) return null;
  const [address, at, signature, ...rest] = token.split(".");
  if (!address || !at || !signature || rest.length > 0) return null;
  const expected = Buffer.from(mac(secret, `${address}.${at}`));
  const given = Buffer.from(signature);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null;
  if (Buffer.from(address, "base64url").toString() !== normal(email)) return null;
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

/** The known-device budget of a sign-in request's browser for `email`, or null. */
export function knownDeviceOf(cookieHeader: string | null | undefined, email: string, now: Date): string | null {
  const secret = authSecret();
  return secret ? knownDeviceKey(cookieValue(cookieHeader, knownDeviceCookieName(secureCookies())), email, now, secret) : null;
}

const SIGN_IN_PATH = /\/api\/auth\/callback\/credentials$/;
const SESSION_COOKIE = /^(__Secure-)?next-auth\.session-token(\.\d+)?=[^;]+/;

/**
 * Around next-auth's handler: a sign-in whose answer sets a session also makes the browser known
 * for the address it signed in as (the cookie goes only to /api/auth, HttpOnly).
 */
export async function withKnownDevice(req: Request, now: Date, respond: (req: Request) => Promise<Response>): Promise<Response> {
  if (req.method !== "POST" || !SIGN_IN_PATH.test(new URL(req.url).pathname)) return respond(req);
  const email = (await req.clone().formData().catch(() => null))?.get("email");
  const res = await respond(req);
  const secret = authSecret();
  if (!secret || typeof email !== "string" || email.trim() === "" || !res.headers.getSetCookie().some((c) => SESSION_COOKIE.test(c))) return res;
  const secure = secureCookies();
  const cookie = [
    `${knownDeviceCookieName(secure)}=${knownDeviceToken(email, now, secret)}`,
    "Path=/api/auth",
    `Max-Age=${KNOWN_DEVICE_MAX_AGE_SECONDS}`,
    "HttpOnly",
    "SameSite=Lax",
    ...(secure ? ["Secure"] : []),
  ].join("; ");
  const headers = new Headers(res.headers);
  headers.append("set-cookie", cookie);
  return new Response(res.body, { status: res.status, statusText: res.statusText, headers });
}
