import { eq } from "drizzle-orm";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { POST as callbackRoute } from "@/app/api/providers/[provider]/callback/route";
import { getDb } from "@/db/client";
import { events, payments } from "@/db/schema";
import { systemClock } from "@/server/clock";
import { providers, sandbox } from "@/server/providers/registry";
import { sandboxReference } from "@/server/providers/sandbox/client";
import { resolveUnresolvedPayment } from "@/server/services/payments/resolve-unresolved-payment";
import { receiveProviderCallback } from "@/server/services/providers/receive-callback";
import { api } from "@/server/testing/api";
import { expectError } from "@/server/testing/expect-error";
import { paymentBody, seedPayment, seedTestMerchant, type TestMerchant } from "@/server/testing/fixtures";

async function eventTypes(id: string) {
  const db = await getDb();
  return (await db.select({ type: events.type }).from(events).where(eq(events.objectId, id))).map((e) => e.type);
}

describe("POST /v1/test_helpers/payments/{id}/{action}", () => {
  let m: TestMerchant;
  beforeAll(async () => {
    m = await seedTestMerchant();
  });
  const create = async () => (await api("POST", "/v1/payments", { key: m.keys.test, body: paymentBody({ customer: { msisdn: "263770000003" } }), idempotencyKey: `th-${Math.random()}` })).body;

  it.each([
    ["succeed", "succeeded", "payment.succeeded"],
    ["fail", "failed", "payment.failed"],
    ["expire", "expired", "payment.expired"],
  ])("%s drives a test payment to %s with its event", async (action, status, type) => {
    const p = await create();
    const res = await api("POST", `/v1/test_helpers/payments/${p.id}/${action}`, { key: m.keys.test });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: p.id, object: "payment", status });
    expect(await eventTypes(p.id)).toEqual([type]);
    const read = await api("GET", `/v1/payments/${p.id}`, { key: m.keys.test });
    expect(read.body.status).toBe(status);
    expect(read.body.status_transitions[`${status}_at`]).toEqual(expect.any(String));
  });

  it("unknown then age: 24 h later the payment is unresolved with payment.unresolved", async () => {
    const p = await create();
    expect((await api("POST", `/v1/test_helpers/payments/${p.id}/unknown`, { key: m.keys.test })).body.status).toBe("unknown");
    expect(await eventTypes(p.id)).toEqual([]);
    const aged = await api("POST", `/v1/test_helpers/payments/${p.id}/age`, { key: m.keys.test });
    expect(aged.body.status).toBe("unresolved");
    expect(await eventTypes(p.id)).toEqual(["payment.unresolved"]);
    // "As if" 24 h had passed: the payment's own times stay in the order they happened.
    const { created_at, status_transitions: t } = aged.body;
    expect(Date.parse(t.unknown_at)).toBeGreaterThanOrEqual(Date.parse(created_at));
    expect(Date.parse(t.unresolved_at)).toBeGreaterThanOrEqual(Date.parse(t.unknown_at));
  });

  it("is test-mode only: a live key gets 404 saying so, whatever the id, and the payment does not move", async () => {
    const p = await create();
    const refused = expectError(await api("POST", `/v1/test_helpers/payments/${p.id}/succeed`, { key: m.keys.live }), 404, "not_found", "resource_missing", "path");
    expect(refused.message).toBe("Test helpers work in test mode only: call them with a test key (sk_test_… or rk_test_…).");
    const random = await api("POST", `/v1/test_helpers/payments/pay_${"0".repeat(26)}/bogus`, { key: m.keys.live });
    expect(expectError(random, 404, "not_found", "resource_missing", "path").message).toBe(refused.message);
    expect((await api("GET", `/v1/payments/${p.id}`, { key: m.keys.test })).body.status).toBe(p.status);
  });

  it("answers two opposite moves at once with one 200 and one refusal, and the payment as the winner left it", async () => {
    for (let round = 0; round < 3; round++) {
      const p = await create();
      const answers = await Promise.all(["succeed", "fail"].map((action) => api("POST", `/v1/test_helpers/payments/${p.id}/${action}`, { key: m.keys.test })));
      const ok = answers.filter((a) => a.status === 200);
      expect(ok).toHaveLength(1);
      const loser = answers.find((a) => a.status !== 200)!;
      expect(expectError(loser, 400, "invalid_request", "parameter_invalid", "action").message).toMatch(new RegExp(`^This payment's status is ${ok[0]!.body.status}:`));
      expect((await api("GET", `/v1/payments/${p.id}`, { key: m.keys.test })).body.status).toBe(ok[0]!.body.status);
      expect(await eventTypes(p.id)).toEqual([`payment.${ok[0]!.body.status}`]);
    }
  });

  it("refuses an unknown action, another merchant's payment, and ageing a payment that is not unknown", async () => {
    const p = await create();
    expectError(await api("POST", `/v1/test_helpers/payments/${p.id}/teleport`, { key: m.keys.test }), 404, "not_found", "resource_missing", "action");
    const other = await seedTestMerchant();
    expectError(await api("POST", `/v1/test_helpers/payments/${p.id}/succeed`, { key: other.keys.test }), 404, "not_found", "resource_missing", "id");
    const notUnknown = expectError(await api("POST", `/v1/test_helpers/payments/${p.id}/age`, { key: m.keys.test }), 400, "invalid_request", "parameter_invalid", "action");
    expect(notUnknown.message).toBe("This payment's status is awaiting_customer: 'age' moves only a payment whose status is unknown.");
  });

  it("refuses a move the provider could never make, and answers a repeated one with the payment as it is", async () => {
    const p = await create();
    const paid = await api("POST", `/v1/test_helpers/payments/${p.id}/succeed`, { key: m.keys.test });
    expect(paid.body.status).toBe("succeeded");
    for (const action of ["fail", "expire", "unknown", "age"]) {
      const refused = expectError(await api("POST", `/v1/test_helpers/payments/${p.id}/${action}`, { key: m.keys.test }), 400, "invalid_request", "parameter_invalid", "action");
      expect(refused.message).toMatch(/^This payment's status is succeeded: '\w+' moves only a payment whose status is /);
    }
    const again = await api("POST", `/v1/test_helpers/payments/${p.id}/succeed`, { key: m.keys.test });
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ id: p.id, status: "succeeded" });
    expect(await eventTypes(p.id)).toEqual(["payment.succeeded"]);
  });
});

describe("the sandbox end to end", () => {
  let m: TestMerchant;
  beforeAll(async () => {
    m = await seedTestMerchant();
  });
  afterEach(() => {
    sandbox.deliverCallbacksTo(undefined);
    sandbox.delayScale = 1;
    sandbox.resetFaults();
  });

  async function waitFor(id: string, status: string) {
    const db = await getDb();
    for (let i = 0; i < 100; i++) {
      const [row] = await db.select().from(payments).where(eq(payments.id, id));
      if (row?.status === status) return row;
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error(`payment ${id} never became ${status}`);
  }

  it("answers through the signed callback path: …01 succeeds, …02 declines, duplicates change nothing", async () => {
    const db = await getDb();
    sandbox.delayScale = 0.01;
    sandbox.faults.callbacks = "duplicate";
    sandbox.deliverCallbacksTo((headers, rawBody) => receiveProviderCallback({ db, clock: systemClock, providers }, { providerName: "sandbox", headers, rawBody }));
    const ok = (await api("POST", "/v1/payments", { key: m.keys.test, body: paymentBody({ customer: { msisdn: "263770000001" } }), idempotencyKey: `e2e-ok-${Math.random()}` })).body;
    const no = (await api("POST", "/v1/payments", { key: m.keys.test, body: paymentBody({ customer: { msisdn: "263770000002" } }), idempotencyKey: `e2e-no-${Math.random()}` })).body;
    await waitFor(ok.id, "succeeded");
    const declined = await waitFor(no.id, "failed");
    expect(declined.failureCode).toBe("insufficient_funds");
    await new Promise((r) => setTimeout(r, 200));
    expect(await eventTypes(ok.id)).toEqual(["payment.succeeded"]);
    expect(await eventTypes(no.id)).toEqual(["payment.failed"]);
  });

  it("the HTTP callback route verifies before it reads: forged → 401, valid → applied", async () => {
    const p = await seedPayment(m, "awaiting_customer");
    const body = { merchant_tx_id: p.id, transaction_ref: sandboxReference(p.id), amount: p.chargedAmount, currency: "USD", status: "SUCCESS" };
    const post = (cb: { headers: Headers; rawBody: string }, provider = "sandbox") =>
      callbackRoute(new Request(`http://localhost/api/providers/${provider}/callback`, { method: "POST", headers: cb.headers, body: cb.rawBody }), {
        params: Promise.resolve({ provider }),
      });
    const forged = await post(sandbox.signedCallback(body, new Date(), "a-secret-that-is-wrong"));
    expect(forged.status).toBe(401);
    expect(await eventTypes(p.id)).toEqual([]);
    expect((await post(sandbox.signedCallback(body), "ecocash")).status).toBe(404);
    const valid = await post(sandbox.signedCallback(body));
    expect(valid.status).toBe(200);
    expect(await valid.json()).toMatchObject({ received: true, outcome: "applied" });
    expect(await eventTypes(p.id)).toEqual(["payment.succeeded"]);
  });
});

describe("resolveUnresolvedPayment (staff)", () => {
  it("closes an unresolved payment with a reason, and nothing else", async () => {
    const m = await seedTestMerchant();
    const ctx = await m.ctx();
    const p = await seedPayment(m, "unresolved");
    await expect(resolveUnresolvedPayment(ctx, { paymentId: p.id, outcome: "succeeded", reason: "ok" })).rejects.toMatchObject({ param: "reason" });
    const done = await resolveUnresolvedPayment(ctx, { paymentId: p.id, outcome: "failed", reason: "Provider confirmed no debit on the wallet" });
    expect(done).toMatchObject({ status: "failed", failureCode: "resolved_as_failed", resolutionReason: "Provider confirmed no debit on the wallet" });
    expect(await eventTypes(p.id)).toEqual(["payment.failed"]);
    await expect(resolveUnresolvedPayment(ctx, { paymentId: p.id, outcome: "succeeded", reason: "changed my mind" })).rejects.toMatchObject({ code: "parameter_invalid" });
    const other = await seedTestMerchant();
    await expect(resolveUnresolvedPayment(await other.ctx(), { paymentId: p.id, outcome: "succeeded", reason: "not mine to resolve" })).rejects.toMatchObject({ code: "resource_missing" });
  });
});
