import { eq, inArray } from "drizzle-orm";
import { afterEach, describe, expect, it } from "vitest";
import { getDb } from "@/db/client";
import { events, payments } from "@/db/schema";
import { manualClock, systemClock } from "@/server/clock";
import { providers, sandbox } from "@/server/providers/registry";
import { sandboxReference } from "@/server/providers/sandbox/client";
import { seedPayment, seedTestMerchant } from "@/server/testing/fixtures";
import { receiveProviderCallback } from "../providers/receive-callback";
import { claimDuePayments } from "@/server/jobs/due-work";
import { expireClaimed, expirePayment, expirePayments } from "./expire-payment";
import { reconcileClaimed, reconcilePayment } from "./reconcile-payment";
import { transitionPayment } from "./transition-payment";

afterEach(() => {
  sandbox.clock = systemClock;
});

/** A merchant, and the sandbox's clock a minute after `start` (an hour ago), when payments seeded at `start` are overdue. */
async function overdueScene() {
  const db = await getDb();
  const m = await seedTestMerchant();
  const start = new Date(Date.now() - 3_600_000);
  const clock = manualClock(new Date(start.getTime() + 60_000));
  sandbox.clock = clock;
  return { db, m, start, clock, deps: { db, clock, providers } };
}

// Proves something on PostgreSQL (CI), where the three really overlap; PGlite serialises them.
describe("a callback, the expiry timer and a status query at once", () => {
  it("make one terminal transition and one event per payment, but for the provider's success after a forced expiry", async () => {
    const { db, m, start, deps } = await overdueScene();
    // Expired by the clock, paid according to the provider (…01), unknown already for half of them.
    const seeded = await Promise.all(
      Array.from({ length: 20 }, (_, i) => seedPayment(m, i % 2 ? "unknown" : "awaiting_customer", { msisdn: "263770000001", at: start, expiresInMs: 1_000 })),
    );

    await Promise.all(
      seeded.flatMap((p) => {
        const cb = sandbox.signedCallback(
          { merchant_tx_id: p.id, transaction_ref: sandboxReference(p.id), amount: p.chargedAmount, currency: p.currency, status: "SUCCESS" },
          new Date(),
        );
        return [
          receiveProviderCallback({ db, clock: systemClock, providers }, { providerName: "sandbox", ...cb }),
          expirePayment(deps, p.id),
          reconcilePayment(deps, p.id),
          transitionPayment(deps, { paymentId: p.id, to: "expired" }),
        ];
      }),
    );

    const ids = seeded.map((p) => p.id);
    const evts = await db.select().from(events).where(inArray(events.objectId, ids));
    const perPayment = new Map<string, string[]>();
    for (const e of evts) perPayment.set(e.objectId, [...(perPayment.get(e.objectId) ?? []), e.type]);
    for (const id of ids) {
      const types = (perPayment.get(id) ?? []).slice().sort();
      const [row] = await db.select({ status: payments.status }).from(payments).where(eq(payments.id, id));
      const status = row!.status;
      if (types.length === 2) {
        // The forced expiry, then the provider's success, which it confirmed (the money moved).
        expect(types, id).toEqual(["payment.expired", "payment.succeeded"]);
        expect(status, id).toBe("succeeded");
      } else {
        expect(types, id).toHaveLength(1);
        expect(["payment.succeeded", "payment.expired"]).toContain(types[0]);
        expect(`payment.${status}`).toBe(types[0]);
      }
    }
  });
});

describe("batched expiries", () => {
  it("overlapping batches, single expiries and callbacks at once: one outcome and one event per payment", async () => {
    const { db, m, start, deps } = await overdueScene();
    // …03 never answers: asked at expiry, the provider says pending, so each expires unless paid first.
    const seeded = await Promise.all(
      Array.from({ length: 40 }, () => seedPayment(m, "awaiting_customer", { msisdn: "263770000003", at: start, expiresInMs: 1_000 })),
    );
    const ids = seeded.map((p) => p.id);
    const paid = seeded.filter((_, i) => i % 4 === 0);

    const results = await Promise.all([
      expirePayments(deps, ids.slice(0, 30)),
      expirePayments(deps, ids.slice(10, 40)),
      ...ids.slice(0, 5).map((id) => expirePayment(deps, id)),
      ...paid.map((p) => transitionPayment({ db, clock: systemClock }, { paymentId: p.id, to: "succeeded" })),
    ]);
    const first = results[0] as Map<string, { status: string }>;
    expect(first.size).toBe(30);

    const rows = await db.select().from(payments).where(inArray(payments.id, ids));
    for (const row of rows) expect(["expired", "succeeded"]).toContain(row.status);
    const evs = await db.select().from(events).where(inArray(events.objectId, ids));
    expect(evs).toHaveLength(40);
    expect(new Set(evs.map((e) => e.objectId)).size).toBe(40);
    for (const e of evs) expect(e.type).toBe(`payment.${rows.find((r) => r.id === e.objectId)!.status}`);
    expect(evs.find((e) => e.type === "payment.expired")!.data.previous_attributes).toEqual({ status: "awaiting_customer" });
  });
});

describe("claimed rows that went stale", () => {
  it("a payment paid between its claim and its work keeps its outcome and its one event", async () => {
    const { db, m, start, clock, deps } = await overdueScene();
    // …03 never answers: the provider says pending, so without the payment each would expire.
    const waiting = await Promise.all(Array.from({ length: 5 }, () => seedPayment(m, "awaiting_customer", { msisdn: "263770000003", at: start, expiresInMs: 1_000 })));
    const unknown = await Promise.all(Array.from({ length: 5 }, () => seedPayment(m, "unknown", { msisdn: "263770000003", at: start, expiresInMs: 1_000 })));

    const toExpire = await claimDuePayments(db, "expiry", clock.now(), 100, m.merchant.id);
    const toCheck = await claimDuePayments(db, "reconcile", clock.now(), 100, m.merchant.id);
    expect(toExpire).toHaveLength(5);
    expect(toCheck).toHaveLength(5);
    // The callbacks win the race: every payment succeeds after its row was claimed.
    for (const p of [...waiting, ...unknown]) await transitionPayment({ db, clock: systemClock }, { paymentId: p.id, to: "succeeded" });

    await expireClaimed(deps, toExpire);
    await Promise.all(toCheck.map((p) => reconcileClaimed(deps, p)));

    const ids = [...waiting, ...unknown].map((p) => p.id);
    const rows = await db.select().from(payments).where(inArray(payments.id, ids));
    expect(rows.map((r) => r.status)).toEqual(Array(10).fill("succeeded"));
    const evs = await db.select().from(events).where(inArray(events.objectId, ids));
    expect(evs.map((e) => e.type).sort()).toEqual(Array(10).fill("payment.succeeded"));
  });
});
