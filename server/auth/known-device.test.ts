import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { loginKey } from "@/server/domain/staff";
import { consumeSignInAttempt, forgetSignInFailures, resetRateLimitersForTests } from "@/server/rate-limit";
import { setEnv } from "@/server/testing/env";
import { cookieValue, KNOWN_DEVICE_MAX_AGE_SECONDS, knownDeviceCookieName, knownDeviceKey, knownDeviceToken, LAST_BUSINESS_COOKIE, withKnownDevice } from "./known-device";
import { authSecret } from "./secret";

const SECRET = "a secret of at least thirty-two characters";
const now = new Date("2026-11-27T06:00:00Z");
const ana = loginKey("shop", "ana@shop.example");

// The sessions' secret, as an operator on PostgreSQL sets it (without it nothing is signed).
let restoreSecret: () => void;
beforeAll(() => {
  restoreSecret = setEnv({ NEXTAUTH_SECRET: SECRET });
});
afterAll(() => restoreSecret());

describe("known-device tokens", () => {
  it("name the login they were made for, in any case, and nothing else", () => {
    const token = knownDeviceToken(loginKey("Shop", "Ana@Shop.example"), now, SECRET);
    const key = knownDeviceKey(token, loginKey(" shop", " ana@shop.EXAMPLE"), now, SECRET);
    expect(key).toMatch(/^device:[A-Za-z0-9_-]{32}$/);
    // Another browser's token is another budget.
    expect(knownDeviceKey(knownDeviceToken(ana, new Date(now.getTime() + 1), SECRET), ana, now, SECRET)).not.toBe(key);
    expect(knownDeviceKey(token, loginKey("shop", "bob@shop.example"), now, SECRET)).toBeNull();
    // The same address at another business is another login.
    expect(knownDeviceKey(token, loginKey("market", "ana@shop.example"), now, SECRET)).toBeNull();
  });

  it("are refused when forged, altered, signed with another secret, too old or malformed", () => {
    const token = knownDeviceToken(ana, now, SECRET);
    const [address, at, signature] = token.split(".") as [string, string, string];
    const bob = Buffer.from(loginKey("shop", "bob@shop.example")).toString("base64url");
    for (const bad of [
      `${bob}.${at}.${signature}`,
      `${address}.${Number(at) + 1}.${signature}`,
      `${address}.${at}.${signature.slice(0, -1)}${signature.endsWith("A") ? "B" : "A"}`,
      `${address}.${at}`,
      `${token}.extra`,
      "",
      "x".repeat(2000),
    ]) {
      expect(knownDeviceKey(bad, ana, now, SECRET), bad.slice(0, 80)).toBeNull();
    }
    expect(knownDeviceKey(token, ana, now, "another secret of thirty-two characters")).toBeNull();
    const later = new Date(now.getTime() + KNOWN_DEVICE_MAX_AGE_SECONDS * 1000 + 1);
    expect(knownDeviceKey(token, ana, later, SECRET)).toBeNull();
    expect(knownDeviceKey(token, ana, new Date(now.getTime() + KNOWN_DEVICE_MAX_AGE_SECONDS * 1000), SECRET)).not.toBeNull();
  });

  it("are read from a Cookie header by name", () => {
    expect(cookieValue("a=1; mari.known-device=abc.def.ghi; b=2", "mari.known-device")).toBe("abc.def.ghi");
    expect(cookieValue("xmari.known-device=1", "mari.known-device")).toBeUndefined();
    expect(cookieValue(null, "mari.known-device")).toBeUndefined();
  });
});

describe("withKnownDevice", () => {
  const signIn = (email: string, business = "Shop ") =>
    new Request("http://localhost:3000/api/auth/callback/credentials", {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ business, email, password: "whatever it was", csrfToken: "t" }),
    });
  const answer = (...cookies: string[]) => {
    const headers = new Headers({ "content-type": "application/json" });
    for (const c of cookies) headers.append("set-cookie", c);
    return new Response(JSON.stringify({ url: "http://localhost:3000/dashboard" }), { status: 200, headers });
  };

  it("makes the browser known for the login, and remembers the business, when the answer signs it in, keeping the answer's own cookies", async () => {
    let seen = "";
    const res = await withKnownDevice(signIn("Ana@shop.example"), now, async (req) => {
      // next-auth still reads the whole form.
      seen = String((await req.formData()).get("password"));
      return answer("next-auth.session-token=eyJ; Path=/; HttpOnly", "next-auth.csrf-token=x; Path=/");
    });
    expect(seen).toBe("whatever it was");
    const cookies = res.headers.getSetCookie();
    expect(cookies).toHaveLength(4);
    const known = cookies.find((c) => c.startsWith(`${knownDeviceCookieName(false)}=`))!;
    expect(known).toMatch(/; Path=\/api\/auth; Max-Age=\d+; HttpOnly; SameSite=Lax$/);
    const token = cookieValue(known.split(";")[0], knownDeviceCookieName(false));
    expect(knownDeviceKey(token, ana, now, authSecret()!)).not.toBeNull();
    // The sign-in page fills in the business next time (only that page gets the cookie).
    expect(cookies).toContain(`${LAST_BUSINESS_COOKIE}=shop; Path=/dashboard/sign-in; Max-Age=${365 * 24 * 3600}; HttpOnly; SameSite=Lax`);
    expect(await res.json()).toEqual({ url: "http://localhost:3000/dashboard" });
  });

  it("makes nothing known when the sign-in fails, or for any other call", async () => {
    const failed = await withKnownDevice(signIn("ana@shop.example"), now, async () => answer("next-auth.csrf-token=x; Path=/"));
    expect(failed.headers.getSetCookie().join()).not.toMatch(/known-device|mari\.business/);
    const other = await withKnownDevice(new Request("http://localhost:3000/api/auth/session"), now, async () => answer("next-auth.session-token=eyJ; Path=/"));
    expect(other.headers.getSetCookie().join()).not.toMatch(/known-device|mari\.business/);
  });
});

describe("the budget of a known browser", () => {
  afterEach(() => resetRateLimitersForTests());

  it("stays open while the login's own is spent by guesses from elsewhere, and is as small", async () => {
    const restore = setEnv({ SIGN_IN_ATTEMPTS_PER_15_MIN: "3", REDIS_URL: undefined });
    resetRateLimitersForTests();
    try {
      const email = loginKey("shop", `known-${Date.now()}@shop.example`);
      for (let i = 0; i < 3; i++) expect((await consumeSignInAttempt(email, null)).ok).toBe(true);
      expect((await consumeSignInAttempt(email, null)).ok).toBe(false);
      // The member's usual browser still signs in.
      expect((await consumeSignInAttempt(email, null, "device:mine")).ok).toBe(true);
      await forgetSignInFailures(email, "device:mine");
      // Its own guesses are as limited as anyone's.
      for (let i = 0; i < 3; i++) expect((await consumeSignInAttempt(email, null, "device:mine")).ok).toBe(true);
      expect((await consumeSignInAttempt(email, null, "device:mine")).ok).toBe(false);
      expect((await consumeSignInAttempt(email, null, "device:another")).ok).toBe(true);
    } finally {
      restore();
    }
  });
});
