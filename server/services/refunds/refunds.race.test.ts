import { eq, inArray } from "drizzle-orm";
import { afterEach, describe, expect, it } from "vitest";
import { getDb } from "@/db/client";
import { events, payments, refunds } from "@/db/schema";
import { manualClock, systemClock } from "@/server/clock";
import { providers, sandbox } from "@/server/providers/registry";
import { api } from "@/server/testing/api";
import { seedPendingRefund, seedSucceededPayment, seedTestMerchant } from "@/server/testing/fixtures";
import { advanceRefund } from "./advance-refund";
import { transitionRefund } from "./transition-refund";

// Proves something on PostgreSQL (CI), where the requests really overlap; PGlite serialises them.
let seq = 0;
const idemKey = () => `refund-race-${Date.now().toString(36)}-${++seq}`;

async function refundAmounts(paymentId: string): Promise<number[]> {
  const db = await getDb();
  return (await db.select({ amount: refunds.amount }).from(refunds).where(eq(refunds.paymentId, paymentId))).map((r) => r.amount);
}

describe("concurrent refunds of one payment", () => {
  it("20 × 100 at once on a 1,000 payment: exactly 10 are created, the rest are refund_amount_invalid", async () => {
    const m = await seedTestMerchant();
    const p = await seedSucceededPayment(m, { amount: 1_000 });
    const results = await Promise.all(
      Array.from({ length: 20 }, () => api("POST", "/v1/refunds", { key: m.keys.test, body: { payment: p.id, amount: 100 }, idempotencyKey: idemKey() })),
    );
    const created = results.filter((r) => r.status === 201);
    const refused = results.filter((r) => r.status !== 201);
    expect(created).toHaveLength(10);
    expect(refused.map((r) => [r.status, r.body.error.code, r.body.error.param])).toEqual(Array(10).fill([400, "refund_amount_invalid", "amount"]));
    expect((await refundAmounts(p.id)).sort()).toEqual(Array(10).fill(100));
  });

  it("random amounts at once never exceed the payment, and each refused one did not fit", async () => {
    const m = await seedTestMerchant();
    const p = await seedSucceededPayment(m, { amount: 1_000 });
    const amounts = Array.from({ length: 30 }, (_, i) => 1 + ((i * 7919 + Date.now()) % 250));
    const results = await Promise.all(
      amounts.map((amount) => api("POST", "/v1/refunds", { key: m.keys.test, body: { payment: p.id, amount }, idempotencyKey: idemKey() })),
    );
    const accepted = amounts.filter((_, i) => results[i]!.status === 201);
    const rejected = amounts.filter((_, i) => results[i]!.status !== 201);
    for (const [i, r] of results.entries()) {
      if (r.status !== 201) expect([r.status, r.body.error.code], `amount ${amounts[i]}`).toEqual([400, "refund_amount_invalid"]);
    }
    const total = accepted.reduce((a, b) => a + b, 0);
    expect(total).toBeLessThanOrEqual(1_000);
    // What remained only shrank, so each refused amount is more than what finally remains.
    for (const a of rejected) expect(a).toBeGreaterThan(1_000 - total);
    expect((await refundAmounts(p.id)).sort((a, b) => a - b)).toEqual([...accepted].sort((a, b) => a - b));
  });
});

describe("a refund settled from several places at once", () => {
  afterEach(() => {
    sandbox.clock = systemClock;
  });

  it("two advanceRefund calls and a late answer make one transition, one event and one addition to amount_refunded", async () => {
    const db = await getDb();
    const m = await seedTestMerchant();
    const start = new Date(Date.now() - 3_600_000);
    const seeded = await Promise.all(
      Array.from({ length: 10 }, async () => {
        const p = await seedSucceededPayment(m, { msisdn: "263770000001", amount: 500, at: start });
        return { p, r: await seedPendingRefund(p, { at: start, submitted: true, amount: 300 }) };
      }),
    );
    const clock = manualClock(new Date(start.getTime() + 60_000));
    sandbox.clock = clock;
    const deps = { db, clock, providers };
    await Promise.all(
      seeded.flatMap(({ r }) => [advanceRefund(deps, r.id), advanceRefund(deps, r.id), transitionRefund(deps, { refundId: r.id, to: "succeeded" })]),
    );

    const ids = seeded.map(({ r }) => r.id);
    const evts = await db.select({ objectId: events.objectId, type: events.type }).from(events).where(inArray(events.objectId, ids));
    expect(evts.map((e) => e.objectId).sort()).toEqual([...ids].sort());
    expect(new Set(evts.map((e) => e.type))).toEqual(new Set(["refund.succeeded"]));
    const paid = await db.select({ a: payments.amountRefunded }).from(payments).where(inArray(payments.id, seeded.map(({ p }) => p.id)));
    expect(paid.map((r) => r.a)).toEqual(Array(10).fill(300));
  });
});
