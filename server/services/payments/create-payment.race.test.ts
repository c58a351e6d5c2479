import { and, eq } from "drizzle-orm";
import { afterEach, describe, expect, it } from "vitest";
import { getDb } from "@/db/client";
import { payments } from "@/db/schema";
import { sandbox } from "@/server/providers/registry";
import { api } from "@/server/testing/api";
import { paymentBody, seedTestMerchant, uniqueRef } from "@/server/testing/fixtures";

// These prove something only on PostgreSQL (CI sets DATABASE_URL): PGlite is one session and
// serialises everything. They still run on PGlite, where they check the same outcomes.
describe("concurrent creates", () => {
  afterEach(() => sandbox.resetFaults());

  it("50 identical requests with one Idempotency-Key make one payment and one provider push", async () => {
    const m = await seedTestMerchant();
    const body = paymentBody();
    // A slow provider keeps the first request inside its critical section while the others arrive.
    sandbox.faults.pushLatencyMs = 150;
    const responses = await Promise.all(
      Array.from({ length: 50 }, () => api("POST", "/v1/payments", { key: m.keys.test, body, idempotencyKey: "same-key" })),
    );

    const db = await getDb();
    const rows = await db.select().from(payments).where(and(eq(payments.merchantId, m.merchant.id), eq(payments.reference, body.reference as string)));
    expect(rows).toHaveLength(1);
    expect(sandbox.pushCalls(rows[0]!.id)).toBe(1);

    const created = responses.filter((r) => r.status === 201);
    const busy = responses.filter((r) => r.status === 409);
    expect(created.length + busy.length).toBe(50);
    expect(created.length).toBeGreaterThanOrEqual(1);
    for (const r of created) expect(r.body.id).toBe(rows[0]!.id);
    for (const r of busy) expect(r.body.error.code).toBe("request_in_progress");

    // Once the first finishes, every retry is a replay of the same bytes.
    const replay = await api("POST", "/v1/payments", { key: m.keys.test, body, idempotencyKey: "same-key" });
    expect(replay.status).toBe(201);
    expect(replay.headers.get("idempotent-replayed")).toBe("true");
    expect(replay.text).toBe(created[0]!.text);
  });

  it("20 creates with different keys and one reference: exactly one 201", async () => {
    const m = await seedTestMerchant();
    const reference = uniqueRef("race");
    const responses = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        api("POST", "/v1/payments", { key: m.keys.test, body: paymentBody({ reference }), idempotencyKey: `ref-race-${i}` }),
      ),
    );
    const statuses = responses.map((r) => r.status).sort();
    expect(statuses.filter((s) => s === 201)).toHaveLength(1);
    expect(statuses.filter((s) => s === 400)).toHaveLength(19);
    for (const r of responses.filter((x) => x.status === 400)) {
      expect(r.body.error).toMatchObject({ type: "invalid_request", code: "reference_in_use", param: "reference" });
    }
    const db = await getDb();
    const rows = await db.select({ id: payments.id }).from(payments).where(and(eq(payments.merchantId, m.merchant.id), eq(payments.reference, reference)));
    expect(rows).toHaveLength(1);
  });

  it("concurrent creates for different merchants never block each other's references", async () => {
    const [a, b] = await Promise.all([seedTestMerchant(), seedTestMerchant()]);
    const reference = uniqueRef("shared");
    const [ra, rb] = await Promise.all([
      api("POST", "/v1/payments", { key: a!.keys.test, body: paymentBody({ reference }), idempotencyKey: "k" }),
      api("POST", "/v1/payments", { key: b!.keys.test, body: paymentBody({ reference }), idempotencyKey: "k" }),
    ]);
    expect([ra.status, rb.status]).toEqual([201, 201]);
    expect(ra.body.id).not.toBe(rb.body.id);
  });
});
