import { randomUUID } from "node:crypto";
import { expect, test, type APIRequestContext } from "@playwright/test";
import { bearer, seed } from "../support/seed";

/**
 * The lifecycle on the production server: the sandbox answers through its callback path and the
 * local runner's timers, exactly as a merchant integrating against test mode would see it.
 */
async function create(request: APIRequestContext, msisdn: string) {
  const res = await request.post("/v1/payments", {
    headers: { ...bearer(seed().keys.test), "Idempotency-Key": randomUUID() },
    data: { amount: 2_500, currency: "USD", method: "wallet", reference: `e2e-${randomUUID()}`, customer: { msisdn } },
  });
  expect(res.status(), await res.text()).toBe(201);
  return (await res.json()) as { id: string; status: string };
}

async function pollUntil(request: APIRequestContext, id: string, done: (s: string) => boolean) {
  let body: { status: string; failure_code: string | null; status_transitions: Record<string, string | null> } | undefined;
  await expect
    .poll(
      async () => {
        body = await (await request.get(`/v1/payments/${id}`, { headers: bearer(seed().keys.test) })).json();
        return done(body!.status);
      },
      { timeout: 15_000, intervals: [250, 500, 1_000] },
    )
    .toBe(true);
  return body!;
}

test("…01 succeeds through the sandbox's callback", async ({ request }) => {
  const p = await create(request, "077 000 0001");
  expect(p.status).toBe("awaiting_customer");
  const done = await pollUntil(request, p.id, (s) => s !== "awaiting_customer");
  expect(done.status).toBe("succeeded");
  expect(done.status_transitions.succeeded_at).toEqual(expect.any(String));
});

test("…02 is declined for insufficient funds", async ({ request }) => {
  const p = await create(request, "0770000002");
  const done = await pollUntil(request, p.id, (s) => s !== "awaiting_customer");
  expect(done).toMatchObject({ status: "failed", failure_code: "insufficient_funds" });
});

test("test helpers drive a payment the customer never answers (…03)", async ({ request }) => {
  const p = await create(request, "0770000003");
  const res = await request.post(`/v1/test_helpers/payments/${p.id}/unknown`, { headers: bearer(seed().keys.test) });
  expect((await res.json()).status).toBe("unknown");
  const aged = await request.post(`/v1/test_helpers/payments/${p.id}/age`, { headers: bearer(seed().keys.test) });
  expect((await aged.json()).status).toBe("unresolved");
  const live = await request.post(`/v1/test_helpers/payments/${p.id}/succeed`, { headers: bearer(seed().keys.live) });
  expect(live.status()).toBe(404);
  expect((await live.json()).error).toMatchObject({ code: "resource_missing", param: "path", message: expect.stringContaining("test mode only") });
});

test("a forged provider callback is refused", async ({ request }) => {
  const p = await create(request, "0770000003");
  const res = await request.post("/api/providers/sandbox/callback", {
    headers: { "sandbox-signature": `t=${Math.floor(Date.now() / 1000)},v1=${"0".repeat(64)}` },
    data: { merchant_tx_id: p.id, transaction_ref: "x", amount: 2_500, currency: "USD", status: "SUCCESS" },
  });
  expect(res.status()).toBe(401);
  const read = await (await request.get(`/v1/payments/${p.id}`, { headers: bearer(seed().keys.test) })).json();
  expect(read.status).toBe("awaiting_customer");
});
