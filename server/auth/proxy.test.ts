import { encode } from "next-auth/jwt";
import { NextRequest } from "next/server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { setEnv } from "@/server/testing/env";
import { proxy } from "@/proxy";

const SECRET = "a-test-secret-that-is-long-enough-to-sign-cookies";
let restore: () => void;
beforeAll(() => {
  restore = setEnv({ NEXTAUTH_SECRET: SECRET });
});
afterAll(() => restore());

async function visit(path: string, token?: string) {
  const headers = token ? { cookie: `next-auth.session-token=${token}` } : undefined;
  return proxy(new NextRequest(`http://127.0.0.1:3000${path}`, { headers }));
}

const isSignInRedirect = (res: Response, back: string) => {
  expect(res.status).toBe(307);
  const to = new URL(res.headers.get("location")!);
  expect(to.pathname).toBe("/dashboard/sign-in");
  expect(to.searchParams.get("callbackUrl")).toBe(back);
};

describe("proxy.ts: who sees /dashboard", () => {
  it("sends a visitor without a session to sign in, and brings them back to where they were going", async () => {
    isSignInRedirect(await visit("/dashboard/payments?status=failed"), "/dashboard/payments?status=failed");
    expect((await visit("/dashboard/sign-in")).headers.get("x-middleware-next")).toBe("1");
  });

  it("lets a valid session through, and not one that has expired or was signed with another secret", async () => {
    const valid = await encode({ token: { sub: "usr_1" }, secret: SECRET, maxAge: 3600 });
    expect((await visit("/dashboard", valid)).headers.get("x-middleware-next")).toBe("1");

    // Expired a minute ago (next-auth allows 15 s of clock skew).
    const expired = await encode({ token: { sub: "usr_1" }, secret: SECRET, maxAge: -60 });
    isSignInRedirect(await visit("/dashboard", expired), "/dashboard");

    const forged = await encode({ token: { sub: "usr_1" }, secret: "another-secret-that-is-also-long-enough!!", maxAge: 3600 });
    isSignInRedirect(await visit("/dashboard", forged), "/dashboard");
  });
});

describe("proxy.ts over https (PUBLIC_BASE_URL)", () => {
  it("reads the __Secure- session cookie, not the plain one, and sends Strict-Transport-Security", async () => {
    const back = setEnv({ PUBLIC_BASE_URL: "https://pay.example.co.zw" });
    try {
      const valid = await encode({ token: { sub: "usr_1" }, secret: SECRET, maxAge: 3600 });
      const secure = await proxy(new NextRequest("https://pay.example.co.zw/dashboard", { headers: { cookie: `__Secure-next-auth.session-token=${valid}` } }));
      expect(secure.headers.get("x-middleware-next")).toBe("1");
      expect(secure.headers.get("strict-transport-security")).toBe("max-age=31536000; includeSubDomains");
      isSignInRedirect(await visit("/dashboard", valid), "/dashboard");
    } finally {
      back();
    }
    // Over http: no HSTS.
    expect((await visit("/dashboard/sign-in")).headers.get("strict-transport-security")).toBeNull();
  });
});

describe("proxy.ts: paths Next cannot route", () => {
  it("answers a /v1 path that is not percent-encoded UTF-8 with a 400 in the error envelope, and lets a valid one through", async () => {
    for (const path of ["/v1/payments/%ff", "/v1/%", "/v1/payments/%ED%A0%80"]) {
      const res = await visit(path);
      expect(res.status, path).toBe(400);
      const body = await res.json();
      expect(body).toEqual({
        error: { type: "invalid_request", code: "parameter_invalid", message: "The request path is not valid percent-encoded UTF-8.", param: "path", request_id: expect.stringMatching(/^req_/) },
      });
      expect(res.headers.get("request-id")).toBe(body.error.request_id);
    }
    expect((await visit("/v1/payments/pay_%41bc")).headers.get("x-middleware-next")).toBe("1");
  });

  it("answers a page path that is not percent-encoded UTF-8 with a plain 400", async () => {
    for (const path of ["/pay/%ff", "/checkout/%", "/dashboard/%c0"]) expect((await visit(path)).status, path).toBe(400);
    // And /api's dynamic routes (the provider callback, next-auth, tRPC), which Next answered with a bare 500.
    for (const path of ["/api/providers/%ff/callback", "/api/auth/%ED%A0%80", "/api/trpc/%ff"]) expect((await visit(path)).status, path).toBe(400);
    expect((await visit("/api/providers/sand%62ox/callback")).headers.get("x-middleware-next")).toBe("1");
  });
});

describe("proxy.ts: page paths with a trailing slash", () => {
  it("sends them to the path without it, query kept", async () => {
    for (const [from, to] of [
      ["/pay/plink_1/", "/pay/plink_1"],
      ["/checkout/cs_1/?from=app", "/checkout/cs_1?from=app"],
      ["/dashboard/", "/dashboard"],
      ["/dashboard/payments//", "/dashboard/payments"],
    ] as const) {
      const res = await visit(from);
      expect(res.status, from).toBe(308);
      const at = new URL(res.headers.get("location")!);
      expect(at.pathname + at.search, from).toBe(to);
    }
  });
});
