import { NextRequest } from "next/server";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { GET, POST } from "@/app/api/auth/[...nextauth]/route";
import { setEnv } from "@/server/testing/env";
import { seedTestMerchant } from "@/server/testing/fixtures";
import { authOptions, SIGN_IN_ERRORS } from "./options";
import { isCallbackUrl, malformedAuthRequest, sameSiteRedirect } from "./request-guard";

const fault = vi.hoisted(() => ({ on: false }));
vi.mock("@/server/services/staff/authenticate-staff", async (real) => {
  const mod = await real<typeof import("@/server/services/staff/authenticate-staff")>();
  return {
    authenticateStaff: (...args: Parameters<typeof mod.authenticateStaff>) =>
      fault.on ? Promise.reject(new Error('Failed query: select "staff_users"."password_hash" from "staff_users"')) : mod.authenticateStaff(...args),
  };
});

const BASE = "http://127.0.0.1:3000";
const ctx = (...path: string[]) => ({ params: Promise.resolve({ nextauth: path }) });
const get = (path: string, headers?: HeadersInit) => GET(new NextRequest(`${BASE}/api/auth/${path}`, { headers }), ctx(...path.split("?")[0]!.split("/")));
const post = (path: string, body: string, type: string, headers?: HeadersInit) =>
  POST(new NextRequest(`${BASE}/api/auth/${path}`, { method: "POST", body, headers: { "content-type": type, ...headers } }), ctx(...path.split("/")));

/** The credentials provider's own check, as next-auth calls it for a sign-in form's fields. */
async function authorize(fields: Record<string, string>): Promise<unknown> {
  const provider = authOptions().providers[0] as unknown as { options: { authorize: (c: Record<string, string>, req: { headers: Record<string, string> }) => Promise<unknown> } };
  return provider.options.authorize(fields, { headers: {} });
}

let restore = () => {};
beforeEach(() => {
  restore = setEnv({ NEXTAUTH_SECRET: "s".repeat(32) });
});
afterEach(() => {
  restore();
  fault.on = false;
});

describe("/api/auth refuses what next-auth would answer with a 500", () => {
  it("a callbackUrl that is neither a path nor an http(s) URL, in the query, the body or its cookie: 400", async () => {
    for (const res of [
      await get("session?callbackUrl=x"),
      await get("csrf?callbackUrl=javascript:alert(1)"),
      await post("signin", "callbackUrl=x", "application/x-www-form-urlencoded"),
      await post("signin/credentials", JSON.stringify({ callbackUrl: 1 }), "application/json"),
    ]) {
      expect(res.status).toBe(400);
      expect(await res.json()).toMatchObject({ param: "callbackUrl" });
    }
    const cookie = await get("csrf", { cookie: "next-auth.callback-url=x" });
    expect(cookie.status).toBe(400);
    // Cleared, or every sign-in from that browser would be refused.
    expect(cookie.headers.getSetCookie()).toContainEqual(expect.stringMatching(/^next-auth\.callback-url=; Path=\/; Max-Age=0/));
  });

  it("a JSON body that does not parse: 400", async () => {
    const res = await post("callback/credentials", "{", "application/json");
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ message: "The body is not valid JSON." });
  });

  it("lets good callbacks and bodies through to next-auth", async () => {
    for (const req of [
      new Request(`${BASE}/api/auth/csrf?callbackUrl=%2Fdashboard%2Fpayments`),
      new Request(`${BASE}/api/auth/csrf?callbackUrl=${encodeURIComponent(`${BASE}/dashboard`)}`, { headers: { cookie: "next-auth.callback-url=%2Fdashboard" } }),
      new Request(`${BASE}/api/auth/callback/credentials`, { method: "POST", body: "business=acme&callbackUrl=%2Fdashboard", headers: { "content-type": "application/x-www-form-urlencoded" } }),
      new Request(`${BASE}/api/auth/signout`, { method: "POST", body: "{}", headers: { "content-type": "application/json" } }),
    ]) {
      expect(await malformedAuthRequest(req)).toBeNull();
    }
  });
});

describe("credentials sign-in", () => {
  it("a business or e-mail no login could have (a NUL, a megabyte) is no match, not a failed query", async () => {
    for (const business of ["acme\u0000", "b".repeat(1_000_000)]) {
      expect(await authorize({ business, email: "a@b.test", password: "whatever" })).toBeNull();
    }
    expect(await authorize({ business: "acme", email: "a\u0000@b.test", password: "whatever" })).toBeNull();
  });

  it("a fault of ours while checking is 'unavailable', which the page words, with no SQL for next-auth to put in its address", async () => {
    const m = await seedTestMerchant();
    fault.on = true;
    const refused = await authorize({ business: m.merchant.slug, email: "someone@example.test", password: "whatever" }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(Error);
    expect((refused as Error).message).toBe("unavailable");
    expect(SIGN_IN_ERRORS.unavailable).toMatch(/could not check your sign-in/);
  });
});

describe("where a sign-in sends the browser after", () => {
  it("is a URL next-auth can check, or the site's root", () => {
    expect(["/dashboard", "https://example.test/x", "http://127.0.0.1:3000/"].map(isCallbackUrl)).toEqual([true, true, true]);
    expect(["x", "javascript:alert(1)", "", 1, null].map(isCallbackUrl)).toEqual([false, false, false, false, false]);
    expect(sameSiteRedirect("/dashboard", BASE)).toBe(`${BASE}/dashboard`);
    expect(sameSiteRedirect(`${BASE}/dashboard/payments`, BASE)).toBe(`${BASE}/dashboard/payments`);
    expect(sameSiteRedirect("https://elsewhere.test/", BASE)).toBe(BASE);
    expect(sameSiteRedirect("x", BASE)).toBe(BASE);
    expect(sameSiteRedirect(1, BASE)).toBe(BASE);
  });
});
