import { expect, test } from "@playwright/test";
import { bearer, seed } from "../support/seed";

/**
 * What anyone can reach without a key or a session answers a calm 4xx or the page, never a 500,
 * whatever it is sent: over real HTTP against `next start`, for inputs that once gave a bare 500.
 */

test("a hosted page's status, asked by an attempt key no page could send, is the page's status", async ({ request }) => {
  const link = await request.post("/v1/payment_links", { headers: bearer(seed().keys.test), data: { amount: 500, currency: "USD", description: "odd keys" } });
  expect(link.status()).toBe(201);
  const { id } = (await link.json()) as { id: string };
  for (const attempt of ["%00", "a%00b", "%ED%A0%80", "x".repeat(300)]) {
    const res = await request.get(`/pay/${id}/status?attempt=${attempt}`);
    expect(res.status(), attempt).toBe(200);
    expect(await res.json()).toMatchObject({ state: "open", attempt: null });
  }
});

test("/api/inngest is not there while the local runner drives the timers", async ({ request }) => {
  expect((await request.get("/api/inngest")).status()).toBe(404);
  expect((await request.post("/api/inngest", { data: Buffer.from("x"), headers: { "content-type": "application/json" } })).status()).toBe(404);
});

test("sign-in: a callbackUrl that is no URL, or a body that is not JSON, is 400; a business with a NUL is no match", async ({ request }) => {
  for (const res of [
    await request.get("/api/auth/session?callbackUrl=x"),
    await request.post("/api/auth/signin", { form: { callbackUrl: "x" } }),
    await request.post("/api/auth/callback/credentials", { data: Buffer.from("{"), headers: { "content-type": "application/json" } }),
  ]) {
    expect(res.status(), res.url()).toBe(400);
  }
  const { csrfToken } = (await (await request.get("/api/auth/csrf")).json()) as { csrfToken: string };
  const res = await request.post("/api/auth/callback/credentials", {
    form: { business: `${seed().slug}\u0000`, email: seed().staff.email, password: "not the password", csrfToken, json: "true" },
  });
  // next-auth's answer to credentials that match no one, as it gives it to the sign-in form.
  expect(res.status()).toBe(401);
  const { url } = (await res.json()) as { url: string };
  expect(new URL(url).searchParams.get("error")).toBe("CredentialsSignin");
  expect(url).not.toMatch(/select|query/i);
});

test("an /api address whose percent-encoding is not UTF-8 is 400, not a bare 500", async ({ request }) => {
  for (const path of ["/api/providers/%ff/callback", "/api/auth/%ED%A0%80", "/api/trpc/%ff"]) {
    expect((await request.get(path)).status(), path).toBe(400);
    expect((await request.post(path, { data: Buffer.from("x") })).status(), path).toBe(400);
  }
});
