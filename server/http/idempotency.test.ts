import { randomBytes } from "node:crypto";
import { and, eq, sql } from "drizzle-orm";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { getDb } from "@/db/client";
import { rowsOf } from "@/db/rows";
import { checkoutSessions, idempotencyKeys, paymentLinks, payments, webhookEndpoints } from "@/db/schema";
import { quoteFee } from "@/server/domain/fees";
import { newId } from "@/server/domain/ids";
import { requestFingerprint } from "@/server/http/idempotency";
import { systemClock } from "@/server/clock";
import { providers, sandbox } from "@/server/providers/registry";
import { sandboxReference } from "@/server/providers/sandbox/client";
import { createPaymentLink } from "@/server/services/payment-links/create-payment-link";
import { receiveProviderCallback } from "@/server/services/providers/receive-callback";
import { api, type ApiResponse } from "@/server/testing/api";
import { setEnv } from "@/server/testing/env";
import { forgetRemembered } from "@/server/services/idempotency/remembered";
import { expectError } from "@/server/testing/expect-error";
import { refuseCompletion } from "@/server/testing/refuse-completion";
import { paymentBody, seedTestMerchant, type TestMerchant } from "@/server/testing/fixtures";

const HOUR = 60 * 60 * 1000;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const newKey = () => `idem-${randomBytes(8).toString("hex")}`;

async function paymentsOf(merchantId: string, livemode?: boolean) {
  const db = await getDb();
  const where = livemode === undefined ? eq(payments.merchantId, merchantId) : and(eq(payments.merchantId, merchantId), eq(payments.livemode, livemode));
  return db.select().from(payments).where(where);
}

async function record(merchantId: string, key: string, livemode = false) {
  const db = await getDb();
  const [row] = await db
    .select()
    .from(idempotencyKeys)
    .where(and(eq(idempotencyKeys.merchantId, merchantId), eq(idempotencyKeys.livemode, livemode), eq(idempotencyKeys.key, key)));
  return row;
}

afterEach(() => {
  sandbox.resetFaults();
});

describe("the Idempotency-Key header", () => {
  let m: TestMerchant;
  beforeAll(async () => {
    m = await seedTestMerchant();
  });

  it("is required on POST /v1/payments", async () => {
    const res = await api("POST", "/v1/payments", { key: m.keys.test, body: paymentBody() });
    expectError(res, 400, "invalid_request", "idempotency_key_required", "Idempotency-Key");
    expect(res.body.error.message).toContain("Idempotency-Key");
    expect(await paymentsOf(m.merchant.id)).toHaveLength(0);
  });

  it("sent empty (a shell variable left unset) is none: idempotency_key_required, not a malformed key", async () => {
    const res = await api("POST", "/v1/payments", { key: m.keys.test, body: paymentBody(), headers: { "idempotency-key": "" } });
    expectError(res, 400, "invalid_request", "idempotency_key_required", "Idempotency-Key");
    // Where a key is optional, an empty one is no key: the request runs as without one.
    expect((await api("POST", "/v1/payments/preview", { key: m.keys.test, body: { amount: 1_000, currency: "USD", method: "wallet" }, headers: { "idempotency-key": "" } })).status).toBe(200);
  });

  it("is asked for before the body is looked at: a create without one is idempotency_key_required, whatever its body", async () => {
    const res = await api("POST", "/v1/payments", { key: m.keys.test, body: { ...paymentBody(), amount: 0 } });
    expectError(res, 400, "invalid_request", "idempotency_key_required", "Idempotency-Key");
  });

  it.each([
    ["not JSON", "{bad", "application/json"],
    ["not sent as JSON", "amount=1", "text/plain"],
    ["over 64 KB", JSON.stringify({ reference: "r".repeat(70_000) }), "application/json"],
  ])("is asked for before a body that is %s is read", async (_name, rawBody, type) => {
    const res = await api("POST", "/v1/payments", { key: m.keys.test, rawBody, headers: { "content-type": type } });
    expectError(res, 400, "invalid_request", "idempotency_key_required", "Idempotency-Key");
  });

  it("already used, is idempotency_key_reused with a body that cannot even be read, from memory or from the database", async () => {
    const m = await seedTestMerchant();
    const key = newKey();
    expect((await api("POST", "/v1/payments", { key: m.keys.test, body: paymentBody(), idempotencyKey: key })).status).toBe(201);
    const unreadable = { rawBody: "{bad", headers: { "content-type": "application/json" }, idempotencyKey: key };
    expectError(await api("POST", "/v1/payments", { key: m.keys.test, ...unreadable }), 409, "idempotency_conflict", "idempotency_key_reused", "Idempotency-Key");
    forgetRemembered();
    expectError(await api("POST", "/v1/payments", { key: m.keys.test, ...unreadable }), 409, "idempotency_conflict", "idempotency_key_reused", "Idempotency-Key");
    // A key never used: the body's own error.
    expectError(await api("POST", "/v1/payments", { key: m.keys.test, ...unreadable, idempotencyKey: newKey() }), 400, "invalid_request", "parameter_invalid", "body");
  });

  it("already used, is idempotency_key_reused with another body even when that body is also wrong, from memory or from the database", async () => {
    const m = await seedTestMerchant();
    const key = newKey();
    expect((await api("POST", "/v1/payments", { key: m.keys.test, body: paymentBody(), idempotencyKey: key })).status).toBe(201);
    const wrong = { ...paymentBody(), amount: 0 };
    expectError(await api("POST", "/v1/payments", { key: m.keys.test, body: wrong, idempotencyKey: key }), 409, "idempotency_conflict", "idempotency_key_reused", "Idempotency-Key");
    forgetRemembered();
    expectError(await api("POST", "/v1/payments", { key: m.keys.test, body: wrong, idempotencyKey: key }), 409, "idempotency_conflict", "idempotency_key_reused", "Idempotency-Key");
    // A key never used: the body's own error, and nothing stored under the key.
    const fresh = newKey();
    expectError(await api("POST", "/v1/payments", { key: m.keys.test, body: wrong, idempotencyKey: fresh }), 400, "invalid_request", "parameter_invalid", "amount");
    expect(await record(m.merchant.id, fresh)).toBeUndefined();
  });

  it.each([
    ["256 characters", "k".repeat(256)],
    ["a space", "my key"],
    ["a tab", "my\tkey"],
    ["a non-ASCII letter", "café-1"],
  ])("refuses a key with %s as parameter_invalid", async (_name, key) => {
    const res = await api("POST", "/v1/payments", { key: m.keys.test, body: paymentBody(), headers: { "idempotency-key": key } });
    expectError(res, 400, "invalid_request", "parameter_invalid", "Idempotency-Key");
    expect(await paymentsOf(m.merchant.id)).toHaveLength(0);
  });

  it("takes a key of exactly 255 printable characters", async () => {
    const key = `${"~!#$%&'*+-.^_`|"}${"k".repeat(240)}`;
    expect(key).toHaveLength(255);
    const res = await api("POST", "/v1/payments", { key: m.keys.test, body: paymentBody(), idempotencyKey: key });
    expect(res.status).toBe(201);
    expect(await record(m.merchant.id, key)).toMatchObject({ state: "completed", responseStatus: 201 });
  });
});

describe("replays", () => {
  it("answers the same key and body with the stored status and the same bytes, creating one payment and one prompt", async () => {
    const m = await seedTestMerchant();
    const key = newKey();
    const body = paymentBody({ metadata: { order: "A-1" } });
    const first = await api("POST", "/v1/payments", { key: m.keys.test, body, idempotencyKey: key });
    expect(first.status).toBe(201);
    expect(first.headers.get("idempotent-replayed")).toBeNull();

    const second = await api("POST", "/v1/payments", { key: m.keys.test, body, idempotencyKey: key });
    const third = await api("POST", "/v1/payments", { key: m.keys.test, body, idempotencyKey: key });
    for (const replay of [second, third]) {
      expect(replay.status).toBe(201);
      expect(replay.text).toBe(first.text);
      expect(replay.headers.get("idempotent-replayed")).toBe("true");
      expect(replay.headers.get("request-id")).toMatch(/^req_/);
      expect(replay.headers.get("request-id")).not.toBe(first.headers.get("request-id"));
    }
    const rows = await paymentsOf(m.merchant.id);
    expect(rows.map((r) => r.id)).toEqual([first.body.id]);
    expect(sandbox.pushCalls(first.body.id)).toBe(1);
  });

  it("treats no body and {} as the same request, where an operation takes no fields", async () => {
    const m = await seedTestMerchant();
    const created = await api("POST", "/v1/payments", { key: m.keys.test, body: paymentBody(), idempotencyKey: newKey() });
    const path = `/v1/test_helpers/payments/${created.body.id}/expire`;
    const key = newKey();
    const first = await api("POST", path, { key: m.keys.test, idempotencyKey: key });
    expect(first.status).toBe(200);
    for (const again of [{ rawBody: "{}", headers: { "content-type": "application/json" } }, { body: {} }, {}]) {
      const res = await api("POST", path, { key: m.keys.test, idempotencyKey: key, ...again });
      expect(res.status).toBe(200);
      expect(res.headers.get("idempotent-replayed")).toBe("true");
      expect(res.text).toBe(first.text);
    }
  });

  it("treats the same JSON with keys re-ordered and other whitespace as the same request", async () => {
    const m = await seedTestMerchant();
    const key = newKey();
    const body = paymentBody({ metadata: { b: "2", a: "1" } });
    const first = await api("POST", "/v1/payments", { key: m.keys.test, body, idempotencyKey: key });
    expect(first.status).toBe(201);

    const reordered = `{\n  "customer" : { "msisdn":"0771234567" },\t"reference": ${JSON.stringify(body.reference)},
      "metadata": {"a":"1","b":"2"}, "method":"wallet", "currency":"USD", "amount": 1000 }\n`;
    const replay = await api("POST", "/v1/payments", {
      key: m.keys.test,
      rawBody: reordered,
      headers: { "content-type": "application/json; charset=utf-8" },
      idempotencyKey: key,
    });
    expect(replay.status).toBe(201);
    expect(replay.headers.get("idempotent-replayed")).toBe("true");
    expect(replay.text).toBe(first.text);
    expect(await paymentsOf(m.merchant.id)).toHaveLength(1);
  });

  it("refuses the same key with a different body as idempotency_key_reused, changing nothing", async () => {
    const m = await seedTestMerchant();
    const key = newKey();
    const body = paymentBody();
    const first = await api("POST", "/v1/payments", { key: m.keys.test, body, idempotencyKey: key });
    expect(first.status).toBe(201);

    for (const changed of [{ ...body, amount: 1001 }, { ...body, metadata: { extra: "1" } }, { ...body, customer: { msisdn: "0771234568" } }, paymentBody()]) {
      const res = await api("POST", "/v1/payments", { key: m.keys.test, body: changed, idempotencyKey: key });
      expectError(res, 409, "idempotency_conflict", "idempotency_key_reused", "Idempotency-Key");
      expect(res.headers.get("idempotent-replayed")).toBeNull();
    }
    // The original is still replayed afterwards, and still only one payment exists.
    const again = await api("POST", "/v1/payments", { key: m.keys.test, body, idempotencyKey: key });
    expect(again.text).toBe(first.text);
    expect(await paymentsOf(m.merchant.id)).toHaveLength(1);
  });

  it("stores a service's 4xx answer (msisdn_invalid) and replays it byte for byte", async () => {
    const m = await seedTestMerchant();
    const key = newKey();
    const body = paymentBody({ customer: { msisdn: "0242 123 456" } });
    const first = await api("POST", "/v1/payments", { key: m.keys.test, body, idempotencyKey: key });
    expectError(first, 400, "invalid_request", "msisdn_invalid", "customer.msisdn");
    expect(first.body.error.request_id).toBe(first.headers.get("request-id"));

    const replay = await api("POST", "/v1/payments", { key: m.keys.test, body, idempotencyKey: key });
    expect(replay.status).toBe(400);
    expect(replay.text).toBe(first.text);
    expect(replay.headers.get("idempotent-replayed")).toBe("true");
    expect(await record(m.merchant.id, key)).toMatchObject({ state: "completed", responseStatus: 400, responseBody: first.text });
    expect(await paymentsOf(m.merchant.id)).toHaveLength(0);
  });

  it("stores no parameter_invalid, whichever check refused the request: the same key carries the fixed body", async () => {
    const m = await seedTestMerchant();
    const cases = [
      // Found by the services, past the body's schema.
      { path: "/v1/webhook_endpoints", bad: { url: "not a url", enabled_events: ["*"] }, fixed: { url: "http://127.0.0.1:4000/hooks", enabled_events: ["*"] }, param: "url" },
      {
        path: "/v1/payment_links",
        bad: { amount: 500, currency: "USD", description: "Tickets", expires_at: "2020-01-01T00:00:00Z" },
        fixed: { amount: 500, currency: "USD", description: "Tickets", expires_at: new Date(Date.now() + HOUR).toISOString() },
        param: "expires_at",
      },
      // Found by the body's schema.
      { path: "/v1/payments", bad: { ...paymentBody(), amount: -1 }, fixed: paymentBody(), param: "amount" },
    ];
    for (const c of cases) {
      const key = newKey();
      const refused = await api("POST", c.path, { key: m.keys.test, body: c.bad, idempotencyKey: key });
      expectError(refused, 400, "invalid_request", "parameter_invalid", c.param);
      expect(await record(m.merchant.id, key), c.path).toBeUndefined();
      const made = await api("POST", c.path, { key: m.keys.test, body: c.fixed, idempotencyKey: key });
      expect(made.status, `${c.path}: ${made.text}`).toBe(201);
      const replay = await api("POST", c.path, { key: m.keys.test, body: c.fixed, idempotencyKey: key });
      expect(replay.headers.get("idempotent-replayed")).toBe("true");
      expect(replay.text).toBe(made.text);
    }
  });

  it("stores reference_in_use and replays it even after the clash is gone from the request's point of view", async () => {
    const m = await seedTestMerchant();
    const body = paymentBody();
    expect((await api("POST", "/v1/payments", { key: m.keys.test, body, idempotencyKey: newKey() })).status).toBe(201);

    const key = newKey();
    const clash = await api("POST", "/v1/payments", { key: m.keys.test, body, idempotencyKey: key });
    expectError(clash, 400, "invalid_request", "reference_in_use", "reference");
    const replay = await api("POST", "/v1/payments", { key: m.keys.test, body, idempotencyKey: key });
    expect(replay.status).toBe(400);
    expect(replay.text).toBe(clash.text);
    expect(replay.headers.get("idempotent-replayed")).toBe("true");
    expect(await paymentsOf(m.merchant.id)).toHaveLength(1);
  });

  it("does not store validation errors: they are refused before the key is claimed", async () => {
    const m = await seedTestMerchant();
    const key = newKey();
    const bad = await api("POST", "/v1/payments", { key: m.keys.test, body: paymentBody({ amount: 0 }), idempotencyKey: key });
    expectError(bad, 400, "invalid_request", "parameter_invalid", "amount");
    expect(await record(m.merchant.id, key)).toBeUndefined();

    const good = await api("POST", "/v1/payments", { key: m.keys.test, body: paymentBody(), idempotencyKey: key });
    expect(good.status).toBe(201);
    expect(good.headers.get("idempotent-replayed")).toBeNull();
  });
});

describe("concurrency and crashes", () => {
  it("answers request_in_progress while the first request with the key still runs, then replays its answer", async () => {
    const m = await seedTestMerchant();
    const key = newKey();
    const body = paymentBody();
    sandbox.faults.pushLatencyMs = 1_500;
    const firstPromise = api("POST", "/v1/payments", { key: m.keys.test, body, idempotencyKey: key });

    // Wait until the first request holds the key.
    for (let i = 0; i < 100 && (await record(m.merchant.id, key)) === undefined; i++) await sleep(20);
    expect(await record(m.merchant.id, key)).toMatchObject({ state: "in_progress" });

    const second = await api("POST", "/v1/payments", { key: m.keys.test, body, idempotencyKey: key });
    expectError(second, 409, "idempotency_conflict", "request_in_progress", "Idempotency-Key");
    expect(second.headers.get("idempotent-replayed")).toBeNull();
    expect(second.headers.get("retry-after")).toBe("1");
    // A different body is still a reuse, even while the first runs.
    const other = await api("POST", "/v1/payments", { key: m.keys.test, body: paymentBody(), idempotencyKey: key });
    expectError(other, 409, "idempotency_conflict", "idempotency_key_reused", "Idempotency-Key");

    const first = await firstPromise;
    expect(first.status).toBe(201);
    sandbox.faults.pushLatencyMs = 0;
    const later = await api("POST", "/v1/payments", { key: m.keys.test, body, idempotencyKey: key });
    expect(later.status).toBe(201);
    expect(later.text).toBe(first.text);
    expect(later.headers.get("idempotent-replayed")).toBe("true");
    expect(await paymentsOf(m.merchant.id)).toHaveLength(1);
    expect(sandbox.pushCalls(first.body.id)).toBe(1);
  });

  it("writes a create in two transactions: the payment's INSERT claims the key, the prompt's UPDATE stores the answer", async () => {
    const m = await seedTestMerchant();
    const key = newKey();
    sandbox.faults.pushLatencyMs = 1_000;
    const pending = api("POST", "/v1/payments", { key: m.keys.test, body: paymentBody(), idempotencyKey: key });
    // A row's xmin is the transaction that wrote its current version.
    const db = await getDb();
    const writers = async () => {
      const rows = rowsOf<{ payment: string; record: string }>(
        await db.execute(sql`select p.xmin::text as payment, k.xmin::text as record from ${payments} p
          join ${idempotencyKeys} k on k.merchant_id = p.merchant_id and k.livemode = p.livemode and k.key = p.idempotency_key
          where p.merchant_id = ${m.merchant.id} and p.idempotency_key = ${key}`),
      );
      return rows[0];
    };
    let during = await writers();
    for (let i = 0; i < 100 && !during; i++) {
      await sleep(20);
      during = await writers();
    }
    // While the push is in flight: the record and the payment, both made by one statement.
    expect(during).toBeDefined();
    expect(during!.record).toBe(during!.payment);
    expect((await record(m.merchant.id, key))?.state).toBe("in_progress");

    expect((await pending).status).toBe(201);
    const after = (await writers())!;
    // Then the prompt recorded and the answer stored, by one statement again.
    expect(after.record).toBe(after.payment);
    expect(after.payment).not.toBe(during!.payment);
    expect((await record(m.merchant.id, key))?.state).toBe("completed");
  });

  it("lets concurrent identical requests make exactly one payment", async () => {
    const m = await seedTestMerchant();
    const key = newKey();
    const body = paymentBody();
    sandbox.faults.pushLatencyMs = 300;
    const results = await Promise.all(Array.from({ length: 6 }, () => api("POST", "/v1/payments", { key: m.keys.test, body, idempotencyKey: key })));
    const created = results.filter((r) => r.status === 201);
    const busy = results.filter((r) => r.status === 409);
    expect(created.length + busy.length).toBe(6);
    expect(created.length).toBeGreaterThanOrEqual(1);
    for (const r of busy) expect(r.body.error.code).toBe("request_in_progress");
    for (const r of created) expect(r.body.id).toBe(created[0]!.body.id);
    expect(await paymentsOf(m.merchant.id)).toHaveLength(1);
  });

  it("takes over a lock left by a crashed request and finishes its half-made payment", async () => {
    const restore = setEnv({ IDEMPOTENCY_LOCK_TIMEOUT_MS: "2000", PROVIDER_PUSH_TIMEOUT_MS: "1000" });
    try {
      const m = await seedTestMerchant();
      const db = await getDb();
      const key = newKey();
      const body = paymentBody({ amount: 2_500, metadata: { cart: "42" } });
      const now = Date.now();
      const crashedAt = new Date(now - 10_000);

      // What a request that died between committing the row and pushing the prompt leaves behind.
      await db.insert(idempotencyKeys).values({
        merchantId: m.merchant.id,
        livemode: false,
        key,
        requestHash: requestFingerprint("POST", "/v1/payments", body)!,
        state: "in_progress",
        lockedAt: crashedAt,
        createdAt: crashedAt,
        expiresAt: new Date(crashedAt.getTime() + 24 * HOUR),
      });
      const quote = quoteFee(m.merchant.feePlan, m.merchant.feeBearer, 2_500, "USD");
      const paymentId = newId("payment", crashedAt);
      await db.insert(payments).values({
        id: paymentId,
        merchantId: m.merchant.id,
        livemode: false,
        amount: 2_500,
        currency: "USD",
        method: "wallet",
        reference: String(body.reference),
        customerMsisdn: "263771234567",
        network: "ecocash",
        fee: quote.fee,
        feeBearer: quote.fee_bearer,
        chargedAmount: quote.charged_amount,
        status: "awaiting_customer",
        provider: "sandbox",
        metadata: { cart: "42" },
        idempotencyKey: key,
        promptSentAt: null,
        expiresAt: new Date(crashedAt.getTime() + 180_000),
        createdAt: crashedAt,
        updatedAt: crashedAt,
      });

      const retry = await api("POST", "/v1/payments", { key: m.keys.test, body, idempotencyKey: key });
      expect(retry.status).toBe(201);
      expect(retry.headers.get("idempotent-replayed")).toBeNull();
      expect(retry.body).toMatchObject({
        id: paymentId,
        status: "awaiting_customer",
        amount: 2_500,
        metadata: { cart: "42" },
        provider_reference: sandboxReference(paymentId),
      });
      const rows = await paymentsOf(m.merchant.id);
      expect(rows).toHaveLength(1);
      expect(rows[0]!.promptSentAt).toBeInstanceOf(Date);
      expect(sandbox.pushCalls(paymentId)).toBe(1);
      const rec = await record(m.merchant.id, key);
      expect(rec).toMatchObject({ state: "completed", responseStatus: 201, responseBody: retry.text });
      expect(rec!.lockedAt.getTime()).toBeGreaterThan(crashedAt.getTime());

      const replay = await api("POST", "/v1/payments", { key: m.keys.test, body, idempotencyKey: key });
      expect(replay.text).toBe(retry.text);
      expect(replay.headers.get("idempotent-replayed")).toBe("true");
    } finally {
      restore();
    }
  });

  it("does not take over a lock younger than the timeout", async () => {
    const restore = setEnv({ IDEMPOTENCY_LOCK_TIMEOUT_MS: "60000" });
    try {
      const m = await seedTestMerchant();
      const db = await getDb();
      const key = newKey();
      const body = paymentBody();
      const lockedAt = new Date(Date.now() - 10_000);
      await db.insert(idempotencyKeys).values({
        merchantId: m.merchant.id,
        livemode: false,
        key,
        requestHash: requestFingerprint("POST", "/v1/payments", body)!,
        state: "in_progress",
        lockedAt,
        createdAt: lockedAt,
        expiresAt: new Date(lockedAt.getTime() + 24 * HOUR),
      });
      const res = await api("POST", "/v1/payments", { key: m.keys.test, body, idempotencyKey: key });
      expectError(res, 409, "idempotency_conflict", "request_in_progress", "Idempotency-Key");
      expect(await paymentsOf(m.merchant.id)).toHaveLength(0);
      expect((await record(m.merchant.id, key))!.lockedAt.getTime()).toBe(lockedAt.getTime());
    } finally {
      restore();
    }
  });

  it("does not store a 5xx: the retry with the same key completes the same payment", async () => {
    const m = await seedTestMerchant();
    const key = newKey();
    const body = paymentBody();
    const original = sandbox.push;
    sandbox.push = async function failingOnce() {
      sandbox.push = original;
      throw new Error("socket hang up");
    };
    let failed: ApiResponse;
    try {
      failed = await api("POST", "/v1/payments", { key: m.keys.test, body, idempotencyKey: key });
    } finally {
      sandbox.push = original;
    }
    expectError(failed, 500, "api_error", "internal");
    expect(await record(m.merchant.id, key)).toBeUndefined();
    const [halfMade] = await paymentsOf(m.merchant.id);
    expect(halfMade).toMatchObject({ status: "awaiting_customer", promptSentAt: null, idempotencyKey: key });

    const retry = await api("POST", "/v1/payments", { key: m.keys.test, body, idempotencyKey: key });
    expect(retry.status).toBe(201);
    expect(retry.headers.get("idempotent-replayed")).toBeNull();
    expect(retry.body).toMatchObject({ id: halfMade!.id, status: "awaiting_customer", provider_reference: sandboxReference(halfMade!.id) });
    const rows = await paymentsOf(m.merchant.id);
    expect(rows).toHaveLength(1);
    expect(rows[0]!.promptSentAt).toBeInstanceOf(Date);
    expect(sandbox.pushCalls(halfMade!.id)).toBe(1);

    const replay = await api("POST", "/v1/payments", { key: m.keys.test, body, idempotencyKey: key });
    expect(replay.text).toBe(retry.text);
    expect(replay.headers.get("idempotent-replayed")).toBe("true");
  });

  it("a callback that lands before the prompt is recorded: the create answers the payment as it is now, and so does its replay", async () => {
    const m = await seedTestMerchant();
    const key = newKey();
    const body = paymentBody();
    const original = sandbox.push;
    sandbox.push = async function answeredAtOnce(request, signal) {
      sandbox.push = original;
      const result = await original.call(sandbox, request, signal);
      // The customer's PIN, and the provider's callback, beat the push's own answer here.
      const id = request.idempotencyKey;
      const callback = sandbox.signedCallback({ event_id: `evt-${id}`, merchant_tx_id: id, transaction_ref: sandboxReference(id), amount: request.amount, currency: request.currency, status: "SUCCESS" });
      const receipt = await receiveProviderCallback({ db: await getDb(), clock: systemClock, providers }, { providerName: "sandbox", ...callback });
      expect(receipt.outcome).toBe("applied");
      return result;
    };
    let created: ApiResponse;
    try {
      created = await api("POST", "/v1/payments", { key: m.keys.test, body, idempotencyKey: key });
    } finally {
      sandbox.push = original;
    }
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ status: "succeeded" });
    const replay = await api("POST", "/v1/payments", { key: m.keys.test, body, idempotencyKey: key });
    expect(replay.headers.get("idempotent-replayed")).toBe("true");
    expect(replay.text).toBe(created.text);
    forgetRemembered();
    expect((await api("POST", "/v1/payments", { key: m.keys.test, body, idempotencyKey: key })).text).toBe(created.text);
  });

  it("after a 5xx, the same key with another request is idempotency_key_reused; the first request's body still completes its payment", async () => {
    const m = await seedTestMerchant();
    const key = newKey();
    const body = paymentBody({ metadata: { order: "7" } });
    const original = sandbox.push;
    sandbox.push = async function failingOnce() {
      sandbox.push = original;
      throw new Error("socket hang up");
    };
    try {
      expectError(await api("POST", "/v1/payments", { key: m.keys.test, body, idempotencyKey: key }), 500, "api_error", "internal");
    } finally {
      sandbox.push = original;
    }
    const [halfMade] = await paymentsOf(m.merchant.id);
    const customer = body.customer as { msisdn: string };
    for (const other of [
      { ...body, amount: 99_000 },
      { ...body, currency: "ZWG" },
      { ...body, reference: `${String(body.reference)}-b` },
      { ...body, customer: { msisdn: "0781234567" } },
      { ...body, metadata: { order: "8" } },
      { ...body, metadata: {} },
    ]) {
      expectError(await api("POST", "/v1/payments", { key: m.keys.test, body: other, idempotencyKey: key }), 409, "idempotency_conflict", "idempotency_key_reused", "Idempotency-Key");
    }
    expect(sandbox.pushCalls(halfMade!.id)).toBe(0);
    // The same number typed another way is the same request.
    const retry = await api("POST", "/v1/payments", { key: m.keys.test, body: { ...body, customer: { msisdn: `+263 ${customer.msisdn.slice(1)}` } }, idempotencyKey: key });
    expect(retry.status).toBe(201);
    expect(retry.body).toMatchObject({ id: halfMade!.id, amount: body.amount, reference: body.reference });
    expect(await paymentsOf(m.merchant.id)).toHaveLength(1);
    expect(sandbox.pushCalls(halfMade!.id)).toBe(1);
  });
});

describe("writes whose retry after a 5xx finds nothing of theirs to finish", () => {
  /** The first request fails after its write; the retry with the same key must make exactly one object. */
  async function failThenRetry(m: TestMerchant, path: string, body: Record<string, unknown> | undefined, method: "POST" | "DELETE" = "POST", meanwhile?: () => Promise<void>) {
    const key = newKey();
    const allow = await refuseCompletion(key);
    try {
      expectError(await api(method, path, { key: m.keys.test, body, idempotencyKey: key }), 500, "api_error", "internal");
    } finally {
      await allow();
    }
    await meanwhile?.();
    const retry = await api(method, path, { key: m.keys.test, body, idempotencyKey: key });
    const replay = await api(method, path, { key: m.keys.test, body, idempotencyKey: key });
    expect(replay.headers.get("idempotent-replayed")).toBe("true");
    expect(replay.text).toBe(retry.text);
    return retry;
  }

  it("a payment link is made once", async () => {
    const m = await seedTestMerchant();
    const retry = await failThenRetry(m, "/v1/payment_links", { amount: 1_500, currency: "USD", description: "Ticket" });
    expect(retry.status).toBe(201);
    const db = await getDb();
    expect(await db.select().from(paymentLinks).where(eq(paymentLinks.merchantId, m.merchant.id))).toHaveLength(1);
  });

  it("a checkout session is made once, and its retry is not told its own reference is in use", async () => {
    const m = await seedTestMerchant();
    const retry = await failThenRetry(m, "/v1/checkout_sessions", { amount: 1_500, currency: "USD", reference: `order-${randomBytes(4).toString("hex")}`, success_url: "https://shop.example/thanks" });
    expect(retry.status).toBe(201);
    const db = await getDb();
    expect(await db.select().from(checkoutSessions).where(eq(checkoutSessions.merchantId, m.merchant.id))).toHaveLength(1);
  });

  it("a webhook endpoint is made once", async () => {
    const m = await seedTestMerchant();
    const retry = await failThenRetry(m, "/v1/webhook_endpoints", { url: "http://127.0.0.1:9/hooks", enabled_events: ["*"] });
    expect(retry.status).toBe(201);
    const db = await getDb();
    expect(await db.select().from(webhookEndpoints).where(eq(webhookEndpoints.merchantId, m.merchant.id))).toHaveLength(1);
  });

  it("a secret is rolled once: the secret the merchant holds keeps signing beside the new one", async () => {
    const m = await seedTestMerchant();
    const created = await api<{ id: string; secret: string }>("POST", "/v1/webhook_endpoints", { key: m.keys.test, body: { url: "http://127.0.0.1:9/hooks", enabled_events: ["*"] } });
    const retry = await failThenRetry(m, `/v1/webhook_endpoints/${created.body.id}/roll_secret`, undefined);
    expect(retry.status).toBe(200);
    const db = await getDb();
    const [row] = await db.select().from(webhookEndpoints).where(eq(webhookEndpoints.id, created.body.id));
    expect(row).toMatchObject({ secret: (retry.body as { secret: string }).secret, previousSecret: created.body.secret });
  });

  it("an endpoint is deleted once: the retry answers the delete rather than finding the endpoint gone", async () => {
    const m = await seedTestMerchant();
    const created = await api<{ id: string }>("POST", "/v1/webhook_endpoints", { key: m.keys.test, body: { url: "http://127.0.0.1:9/hooks", enabled_events: ["*"] } });
    const retry = await failThenRetry(m, `/v1/webhook_endpoints/${created.body.id}`, undefined, "DELETE");
    expect(retry.status).toBe(200);
    expect(retry.body).toEqual({ id: created.body.id, object: "webhook_endpoint", livemode: false, deleted: true });
    expect((await api("GET", `/v1/webhook_endpoints/${created.body.id}`, { key: m.keys.test })).status).toBe(404);
  });

  it("an endpoint's change commits with its answer: one that answered 500 changed nothing, and its retry applies it once", async () => {
    const m = await seedTestMerchant();
    const created = await api<{ id: string }>("POST", "/v1/webhook_endpoints", { key: m.keys.test, body: { url: "http://127.0.0.1:9/hooks", enabled_events: ["*"] } });
    const path = `/v1/webhook_endpoints/${created.body.id}`;
    const retry = await failThenRetry(m, path, { disabled: true, description: "paused" }, "POST", async () => {
      expect((await api("GET", path, { key: m.keys.test })).body).toMatchObject({ status: "enabled", description: null });
    });
    expect(retry.status).toBe(200);
    expect(retry.body).toMatchObject({ id: created.body.id, status: "disabled", description: "paused" });
  });

  it("a create whose key was taken over meanwhile (it ran past the lock timeout) writes nothing: the new holder makes the object", async () => {
    const m = await seedTestMerchant();
    const db = await getDb();
    const key = newKey();
    const takenOverAt = new Date();
    await db.insert(idempotencyKeys).values({
      merchantId: m.merchant.id,
      livemode: false,
      key,
      requestHash: "another holder's",
      state: "in_progress",
      lockedAt: takenOverAt,
      createdAt: takenOverAt,
      expiresAt: new Date(takenOverAt.getTime() + 24 * HOUR),
    });
    // This request's claim: older than the lock the new holder took.
    const response = {
      completionFor: () => ({ merchantId: m.merchant.id, livemode: false, key, lockedAt: new Date(takenOverAt.getTime() - 20_000).toISOString(), status: 201, body: "{}", sent: "{}" }),
      completedWith: () => {
        throw new Error("nothing was stored");
      },
    };
    await expect(createPaymentLink(await m.ctx(), { amount: 1_500, currency: "USD", description: "Ticket", response })).rejects.toMatchObject({ code: "request_in_progress" });
    expect(await db.select().from(paymentLinks).where(eq(paymentLinks.merchantId, m.merchant.id))).toHaveLength(0);
    expect(await record(m.merchant.id, key)).toMatchObject({ state: "in_progress", lockedAt: takenOverAt });
  });
});

describe("scope and lifetime of a key", () => {
  it("scopes keys per merchant and per environment", async () => {
    const a = await seedTestMerchant();
    const b = await seedTestMerchant();
    const key = newKey();
    const body = paymentBody();

    const aTest = await api("POST", "/v1/payments", { key: a.keys.test, body, idempotencyKey: key });
    const bTest = await api("POST", "/v1/payments", { key: b.keys.test, body, idempotencyKey: key });
    const aLive = await api("POST", "/v1/payments", { key: a.keys.live, body, idempotencyKey: key });
    // A different body under the same key elsewhere is no conflict either.
    const bLive = await api("POST", "/v1/payments", { key: b.keys.live, body: paymentBody({ amount: 7_77 }), idempotencyKey: key });

    for (const r of [aTest, bTest, aLive, bLive]) {
      expect(r.status).toBe(201);
      expect(r.headers.get("idempotent-replayed")).toBeNull();
    }
    expect(new Set([aTest, bTest, aLive, bLive].map((r) => r.body.id)).size).toBe(4);
    expect([aTest.body.livemode, aLive.body.livemode, bLive.body.livemode]).toEqual([false, true, true]);
    expect(bLive.body.amount).toBe(777);
    expect(await paymentsOf(a.merchant.id, false)).toHaveLength(1);
    expect(await paymentsOf(a.merchant.id, true)).toHaveLength(1);
    expect(await paymentsOf(b.merchant.id)).toHaveLength(2);

    // Each scope replays its own answer.
    const aLiveAgain = await api("POST", "/v1/payments", { key: a.keys.live, body, idempotencyKey: key });
    expect(aLiveAgain.text).toBe(aLive.text);
  });

  it("still replays a record younger than 24 h", async () => {
    const m = await seedTestMerchant();
    const db = await getDb();
    const key = newKey();
    const body = paymentBody();
    const first = await api("POST", "/v1/payments", { key: m.keys.test, body, idempotencyKey: key });
    const aged = new Date(Date.now() - 23 * HOUR);
    await db
      .update(idempotencyKeys)
      .set({ createdAt: aged, lockedAt: aged, expiresAt: new Date(aged.getTime() + 24 * HOUR) })
      .where(and(eq(idempotencyKeys.merchantId, m.merchant.id), eq(idempotencyKeys.key, key)));
    await db.update(payments).set({ createdAt: aged }).where(eq(payments.id, first.body.id));
    // Read from the database, as another process would.
    forgetRemembered();

    const replay = await api("POST", "/v1/payments", { key: m.keys.test, body, idempotencyKey: key });
    expect(replay.text).toBe(first.text);
    expect(replay.headers.get("idempotent-replayed")).toBe("true");
    const reused = await api("POST", "/v1/payments", { key: m.keys.test, body: paymentBody(), idempotencyKey: key });
    expectError(reused, 409, "idempotency_conflict", "idempotency_key_reused", "Idempotency-Key");
  });

  it("forgets a key after 24 h: the same key with a new body makes a new payment", async () => {
    const m = await seedTestMerchant();
    const db = await getDb();
    const key = newKey();
    const first = await api("POST", "/v1/payments", { key: m.keys.test, body: paymentBody(), idempotencyKey: key });
    expect(first.status).toBe(201);

    // Everything made with the key is a day old now.
    const dayAgo = new Date(Date.now() - 25 * HOUR);
    await db
      .update(idempotencyKeys)
      .set({ createdAt: dayAgo, lockedAt: dayAgo, expiresAt: new Date(dayAgo.getTime() + 24 * HOUR) })
      .where(and(eq(idempotencyKeys.merchantId, m.merchant.id), eq(idempotencyKeys.key, key)));
    await db.update(payments).set({ createdAt: dayAgo }).where(eq(payments.id, first.body.id));
    // A day on, this process no longer holds the record either (remembered.test.ts).
    forgetRemembered();

    const body = paymentBody({ amount: 4_321, metadata: { attempt: "2" } });
    const second = await api("POST", "/v1/payments", { key: m.keys.test, body, idempotencyKey: key });
    expect(second.status).toBe(201);
    expect(second.headers.get("idempotent-replayed")).toBeNull();
    expect(second.body.id).not.toBe(first.body.id);
    expect(second.body).toMatchObject({ amount: 4_321, reference: body.reference, metadata: { attempt: "2" }, status: "awaiting_customer" });
    expect(sandbox.pushCalls(second.body.id)).toBe(1);

    const rows = await paymentsOf(m.merchant.id);
    expect(rows.map((r) => r.id).sort()).toEqual([first.body.id, second.body.id].sort());
    // The new record answers for the key from now on.
    const replay = await api("POST", "/v1/payments", { key: m.keys.test, body, idempotencyKey: key });
    expect(replay.text).toBe(second.text);
    expect(await record(m.merchant.id, key)).toMatchObject({ state: "completed", responseBody: second.text });
  });
});
