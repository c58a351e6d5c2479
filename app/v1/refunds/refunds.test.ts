import { eq } from "drizzle-orm";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { getDb } from "@/db/client";
import { idempotencyKeys, payments, refunds } from "@/db/schema";
import type { PaymentStatus } from "@/server/domain/payment-status";
import { sandbox } from "@/server/providers/registry";
import { sandboxReference } from "@/server/providers/sandbox/client";
import { api } from "@/server/testing/api";
import { expectError } from "@/server/testing/expect-error";
import { seedPayment, seedSucceededPayment, seedTestMerchant, type TestMerchant } from "@/server/testing/fixtures";

let seq = 0;
const idemKey = () => `refunds-test-${Date.now().toString(36)}-${++seq}`;
const refund = (key: string, body: Record<string, unknown>, idempotencyKey = idemKey()) => api("POST", "/v1/refunds", { key, body, idempotencyKey });

const REFUND_FIELDS = [
  "amount",
  "created_at",
  "currency",
  "failure_code",
  "failure_message",
  "id",
  "livemode",
  "metadata",
  "object",
  "payment",
  "provider_reference",
  "reason",
  "status",
  "status_transitions",
];

afterEach(() => {
  sandbox.resetFaults();
});

async function refundRows(paymentId: string) {
  const db = await getDb();
  return db.select().from(refunds).where(eq(refunds.paymentId, paymentId));
}

describe("POST /v1/refunds", () => {
  let m: TestMerchant;
  beforeAll(async () => {
    m = await seedTestMerchant();
  });

  it("refunds all that remains by default, submitted to the provider during the request", async () => {
    const p = await seedSucceededPayment(m, { amount: 1_000 });
    const before = Date.now();
    const res = await refund(m.keys.test, { payment: p.id, reason: "requested_by_customer", metadata: { ticket: "T-1" } });
    expect(res.status).toBe(201);
    expect(Object.keys(res.body).sort()).toEqual(REFUND_FIELDS);
    expect(res.body).toMatchObject({
      object: "refund",
      livemode: false,
      payment: p.id,
      amount: 1_000,
      currency: "USD",
      status: "pending",
      reason: "requested_by_customer",
      failure_code: null,
      failure_message: null,
      metadata: { ticket: "T-1" },
      status_transitions: { succeeded_at: null, failed_at: null },
    });
    expect(res.body.id).toMatch(/^re_[0-9a-z]{26}$/);
    expect(res.body.provider_reference).toBe(sandboxReference(res.body.id));
    expect(Date.parse(res.body.created_at)).toBeGreaterThanOrEqual(before - 1);
    expect(sandbox.refundsTaken(p.id)).toEqual([res.body.id]);
    const [row] = await refundRows(p.id);
    expect(row!.submittedAt).not.toBeNull();
    expect(row!.nextCheckAt!.getTime()).toBeGreaterThan(row!.submittedAt!.getTime());
  });

  it("carries the payment's metadata under its own, and refuses more than 50 keys in all", async () => {
    const p = await seedSucceededPayment(m, { amount: 1_000 });
    const payments50 = Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`k${i}`, "v"]));
    await (await getDb()).update(payments).set({ metadata: payments50 }).where(eq(payments.id, p.id));
    const tooMany = await refund(m.keys.test, { payment: p.id, amount: 100, metadata: { ticket: "T-2" } });
    expect(expectError(tooMany, 400, "invalid_request", "parameter_invalid", "metadata").message).toContain("at most 50 keys in all");
    const sameKey = await refund(m.keys.test, { payment: p.id, amount: 100, metadata: { k0: "refund's" } });
    expect(sameKey.status).toBe(201);
    expect(sameKey.body.metadata).toEqual({ ...payments50, k0: "refund's" });
  });

  it("takes partial refunds until the amount is used up, naming what remains when one is too big", async () => {
    const p = await seedSucceededPayment(m, { amount: 1_000 });
    expect((await refund(m.keys.test, { payment: p.id, amount: 300 })).body).toMatchObject({ amount: 300, status: "pending" });
    expect((await refund(m.keys.test, { payment: p.id, amount: 500 })).body).toMatchObject({ amount: 500, status: "pending" });

    const over = await refund(m.keys.test, { payment: p.id, amount: 201 });
    const err = expectError(over, 400, "invalid_request", "refund_amount_invalid", "amount");
    expect(err.message).toContain("200 of 1000");

    expect((await refund(m.keys.test, { payment: p.id, amount: 200 })).body).toMatchObject({ amount: 200, status: "pending" });
    const none = await refund(m.keys.test, { payment: p.id });
    expect(expectError(none, 400, "invalid_request", "refund_amount_invalid", "amount").message).toContain("nothing left to refund");
    expectError(await refund(m.keys.test, { payment: p.id, amount: 1 }), 400, "invalid_request", "refund_amount_invalid", "amount");
    expect((await refundRows(p.id)).map((r) => r.amount).sort((a, b) => a - b)).toEqual([200, 300, 500]);
  });

  it("a refund the provider refuses is failed at once and no longer holds the amount", async () => {
    const p = await seedSucceededPayment(m, { amount: 1_000 });
    sandbox.faults.refund = "rejected";
    const res = await refund(m.keys.test, { payment: p.id, amount: 600 });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ status: "failed", failure_code: "refund_rejected", amount: 600 });
    expect(res.body.status_transitions.failed_at).not.toBeNull();
    sandbox.resetFaults();
    expect((await refund(m.keys.test, { payment: p.id })).body).toMatchObject({ amount: 1_000, status: "pending" });
  });

  it("a provider that cannot be reached leaves the refund pending and unsubmitted, to be submitted later", async () => {
    const p = await seedSucceededPayment(m);
    sandbox.faults.refund = "error";
    const res = await refund(m.keys.test, { payment: p.id });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ status: "pending", provider_reference: null });
    const [row] = await refundRows(p.id);
    expect(row!.submittedAt).toBeNull();
    expect(row!.nextCheckAt).not.toBeNull();
  });

  it.each(["awaiting_customer", "unknown", "failed", "expired", "unresolved"] as PaymentStatus[])(
    "refuses a payment that is %s, naming its state",
    async (status) => {
      const p = await seedPayment(m, status);
      const err = expectError(await refund(m.keys.test, { payment: p.id }), 400, "invalid_request", "parameter_invalid", "payment");
      expect(err.message).toBe(`Payment ${p.id} is ${status}; only a succeeded payment can be refunded.`);
      expect(await refundRows(p.id)).toEqual([]);
    },
  );

  it("requires an Idempotency-Key", async () => {
    const p = await seedSucceededPayment(m);
    const res = await api("POST", "/v1/refunds", { key: m.keys.test, body: { payment: p.id } });
    expectError(res, 400, "invalid_request", "idempotency_key_required", "Idempotency-Key");
    expect(await refundRows(p.id)).toEqual([]);
  });

  it("replays the same refund for the same key, and refuses the key with another body", async () => {
    const p = await seedSucceededPayment(m);
    const key = idemKey();
    const first = await refund(m.keys.test, { payment: p.id, amount: 400 }, key);
    const again = await refund(m.keys.test, { payment: p.id, amount: 400 }, key);
    expect(first.status).toBe(201);
    expect(again.status).toBe(201);
    expect(again.text).toBe(first.text);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(await refundRows(p.id)).toHaveLength(1);
    expect(sandbox.refundCalls(first.body.id)).toBe(1);
    expectError(await refund(m.keys.test, { payment: p.id, amount: 500 }, key), 409, "idempotency_conflict", "idempotency_key_reused", "Idempotency-Key");
  });

  it("a retry that takes over a crashed request finds its refund instead of refunding twice", async () => {
    const p = await seedSucceededPayment(m);
    const key = idemKey();
    const first = await refund(m.keys.test, { payment: p.id, amount: 400 }, key);
    // As if the first request died after committing its refund: its idempotency record is gone.
    const db = await getDb();
    await db.delete(idempotencyKeys).where(eq(idempotencyKeys.key, key));
    const retry = await refund(m.keys.test, { payment: p.id, amount: 400 }, key);
    expect(retry.status).toBe(201);
    expect(retry.body.id).toBe(first.body.id);
    expect(await refundRows(p.id)).toHaveLength(1);
    expect(sandbox.refundsTaken(p.id)).toEqual([first.body.id]);
  });

  it("needs refunds:write; refunds:read may read", async () => {
    const p = await seedSucceededPayment(m);
    const reader = await m.restrictedKey(["refunds:read", "payments:write"]);
    expectError(await refund(reader, { payment: p.id }), 403, "permission_error", "scope_missing");
    expect(await refundRows(p.id)).toEqual([]);

    const writer = await m.restrictedKey(["refunds:write"]);
    const created = await refund(writer, { payment: p.id, amount: 100 });
    expect(created.status).toBe(201);
    expectError(await api("GET", `/v1/refunds/${created.body.id}`, { key: writer }), 403, "permission_error", "scope_missing");

    const one = await api("GET", `/v1/refunds/${created.body.id}`, { key: reader });
    expect(one.status).toBe(200);
    expect(one.body.id).toBe(created.body.id);
    expect((await api("GET", `/v1/refunds?payment=${p.id}`, { key: reader })).body.data.map((r: any) => r.id)).toEqual([created.body.id]);
  });

  it("treats another merchant's or environment's payment, or none, as missing", async () => {
    const other = await seedTestMerchant();
    const theirs = await seedSucceededPayment(other);
    const live = await seedSucceededPayment(m, { livemode: true });
    const test = await seedSucceededPayment(m);

    expectError(await refund(m.keys.test, { payment: theirs.id }), 404, "not_found", "resource_missing", "payment");
    expectError(await refund(m.keys.test, { payment: live.id }), 404, "not_found", "resource_missing", "payment");
    expectError(await refund(m.keys.live, { payment: test.id }), 404, "not_found", "resource_missing", "payment");
    const ghost = test.id.slice(0, -4) + "zzzz";
    expectError(await refund(m.keys.test, { payment: ghost }), 404, "not_found", "resource_missing", "payment");

    const liveRefund = await refund(m.keys.live, { payment: live.id });
    expect(liveRefund.body).toMatchObject({ livemode: true, status: "pending" });
    expectError(await api("GET", `/v1/refunds/${liveRefund.body.id}`, { key: m.keys.test }), 404, "not_found", "resource_missing", "id");
    expectError(await api("GET", `/v1/refunds/${liveRefund.body.id}`, { key: other.keys.live }), 404, "not_found", "resource_missing", "id");
    expect((await api("GET", `/v1/refunds?payment=${live.id}`, { key: m.keys.test })).body.data).toEqual([]);
    expect((await api("GET", `/v1/refunds?payment=${live.id}`, { key: other.keys.live })).body.data).toEqual([]);
  });

  it.each([
    [{ payment: "PAY", amount: 100 }, "payment"],
    [{ amount: 100 }, "payment"],
    [{ payment: "{pay}", amount: 0 }, "amount"],
    [{ payment: "{pay}", amount: -5 }, "amount"],
    [{ payment: "{pay}", amount: 1.5 }, "amount"],
    [{ payment: "{pay}", amount: "100" }, "amount"],
    [{ payment: "{pay}", amount: 100_000_000 }, "amount"],
    [{ payment: "{pay}", reason: "changed_mind" }, "reason"],
    [{ payment: "{pay}", metadata: { k: 1 } }, "metadata.k"],
    [{ payment: "{pay}", currency: "USD" }, "currency"],
  ])("refuses %j as parameter_invalid on %s, writing nothing", async (body, param) => {
    const p = await seedSucceededPayment(m);
    const filled = JSON.parse(JSON.stringify(body).replace("{pay}", p.id)) as Record<string, unknown>;
    expectError(await refund(m.keys.test, filled), 400, "invalid_request", "parameter_invalid", param);
    expect(await refundRows(p.id)).toEqual([]);
  });
});

describe("GET /v1/refunds and /v1/refunds/{id}", () => {
  let m: TestMerchant;
  beforeAll(async () => {
    m = await seedTestMerchant();
  });

  it("retrieves a refund as it was created", async () => {
    const p = await seedSucceededPayment(m);
    const created = await refund(m.keys.test, { payment: p.id, amount: 250 });
    const res = await api("GET", `/v1/refunds/${created.body.id}`, { key: m.keys.test });
    expect(res.status).toBe(200);
    expect(res.body).toEqual(created.body);
    expectError(await api("GET", "/v1/refunds/re_nope", { key: m.keys.test }), 404, "not_found", "resource_missing", "id");
    expectError(await api("GET", `/v1/refunds/${p.id}`, { key: m.keys.test }), 404, "not_found", "resource_missing", "id");
  });

  it("lists newest first, one payment's with ?payment, with cursors both ways", async () => {
    const a = await seedSucceededPayment(m, { amount: 1_000 });
    const b = await seedSucceededPayment(m, { amount: 1_000 });
    const made: { id: string; payment: string }[] = [];
    for (const p of [a, b, a, b, a]) {
      const res = await refund(m.keys.test, { payment: p.id, amount: 100 });
      expect(res.status).toBe(201);
      made.push({ id: res.body.id, payment: p.id });
    }
    const newestFirst = made.map((r) => r.id).reverse();

    const all = await api("GET", "/v1/refunds?limit=100", { key: m.keys.test });
    expect(all.status).toBe(200);
    expect(all.body).toMatchObject({ object: "list", has_more: false, url: "/v1/refunds" });
    expect(all.body.data.map((r: any) => r.id).filter((id: string) => newestFirst.includes(id))).toEqual(newestFirst);

    const ofA = made.filter((r) => r.payment === a.id).map((r) => r.id).reverse();
    const page1 = await api("GET", `/v1/refunds?payment=${a.id}&limit=2`, { key: m.keys.test });
    expect(page1.body.data.map((r: any) => r.id)).toEqual(ofA.slice(0, 2));
    expect(page1.body.has_more).toBe(true);
    const page2 = await api("GET", `/v1/refunds?payment=${a.id}&limit=2&starting_after=${ofA[1]}`, { key: m.keys.test });
    expect(page2.body.data.map((r: any) => r.id)).toEqual(ofA.slice(2));
    expect(page2.body.has_more).toBe(false);
    const back = await api("GET", `/v1/refunds?payment=${a.id}&limit=1&ending_before=${ofA[2]}`, { key: m.keys.test });
    expect(back.body.data.map((r: any) => r.id)).toEqual([ofA[1]]);
    expect(back.body.has_more).toBe(true);

    const ofB = await api("GET", `/v1/refunds?payment=${b.id}`, { key: m.keys.test });
    expect(ofB.body.data.map((r: any) => r.payment)).toEqual([b.id, b.id]);
  });

  it("refuses bad list parameters and other methods", async () => {
    expectError(await api("GET", "/v1/refunds?payment=nope", { key: m.keys.test }), 400, "invalid_request", "parameter_invalid", "payment");
    expectError(await api("GET", "/v1/refunds?limit=0", { key: m.keys.test }), 400, "invalid_request", "parameter_invalid", "limit");
    expectError(await api("GET", "/v1/refunds?status=pending", { key: m.keys.test }), 400, "invalid_request", "parameter_invalid", "status");
    expectError(await api("GET", "/v1/refunds?starting_after=pay_x", { key: m.keys.test }), 400, "invalid_request", "parameter_invalid", "starting_after");
    expectError(await api("DELETE", "/v1/refunds", { key: m.keys.test }), 404, "not_found", "resource_missing");
    expectError(await api("POST", "/v1/refunds/re_x", { key: m.keys.test, body: {} }), 404, "not_found", "resource_missing");
  });
});
