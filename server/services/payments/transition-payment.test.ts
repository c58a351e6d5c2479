import { eq, sql } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { getDb } from "@/db/client";
import { events, outbox } from "@/db/schema";
import { systemClock, manualClock } from "@/server/clock";
import { PAYMENT_EVENT } from "@/server/domain/events";
import { PAYMENT_STATUSES, canTransition, type PaymentStatus } from "@/server/domain/payment-status";
import { seedPayment, seedTestMerchant, type TestMerchant } from "@/server/testing/fixtures";
import { transitionPayment, type TransitionInput } from "./transition-payment";

const TARGETS = PAYMENT_STATUSES.filter((s): s is TransitionInput["to"] => s !== "awaiting_customer");
const failure = { code: "insufficient_funds" as const, message: "Not enough money in the wallet." };

async function eventsFor(objectId: string) {
  const db = await getDb();
  return db.select().from(events).where(eq(events.objectId, objectId));
}

describe("transitionPayment", () => {
  let m: TestMerchant;
  beforeAll(async () => {
    m = await seedTestMerchant();
  });

  const cases = PAYMENT_STATUSES.flatMap((from) => TARGETS.map((to) => [from, to] as [PaymentStatus, TransitionInput["to"]]));

  it.each(cases)("%s → %s moves exactly when the design allows it, with its event", async (from, to) => {
    const db = await getDb();
    const payment = await seedPayment(m, from);
    const clock = manualClock("2026-06-01T10:00:00Z");
    const result = await transitionPayment({ db, clock }, { paymentId: payment.id, to, failure: to === "failed" ? failure : undefined });
    const evts = await eventsFor(payment.id);

    if (!canTransition(from, to)) {
      expect(result.changed).toBe(false);
      expect(result.payment.status).toBe(from);
      expect(evts).toHaveLength(0);
      return;
    }
    expect(result.changed).toBe(true);
    expect(result.payment.status).toBe(to);
    expect(result.payment.updatedAt.toISOString()).toBe("2026-06-01T10:00:00.000Z");
    const type = PAYMENT_EVENT[to];
    if (type === null) {
      expect(evts).toHaveLength(0);
    } else {
      expect(evts).toHaveLength(1);
      expect(evts[0]).toMatchObject({ type, merchantId: m.merchant.id, livemode: false });
      expect(evts[0]!.data.object).toMatchObject({ id: payment.id, status: to, metadata: {} });
      expect(evts[0]!.data.previous_attributes).toEqual({ status: from });
    }
  });

  it("stamps the time of the state change and keeps reconciling unknown payments", async () => {
    const db = await getDb();
    const p = await seedPayment(m, "awaiting_customer");
    const clock = manualClock("2026-06-01T10:00:00Z");
    const unknown = await transitionPayment({ db, clock }, { paymentId: p.id, to: "unknown" });
    expect(unknown.payment.unknownSince?.toISOString()).toBe("2026-06-01T10:00:00.000Z");
    expect(unknown.payment.nextCheckAt!.getTime()).toBeGreaterThan(clock.now().getTime());
    clock.advance(5_000);
    const done = await transitionPayment({ db, clock }, { paymentId: p.id, to: "failed", failure });
    expect(done.payment).toMatchObject({ status: "failed", failureCode: "insufficient_funds", failureMessage: failure.message, nextCheckAt: null });
    expect(done.payment.failedAt?.toISOString()).toBe("2026-06-01T10:00:05.000Z");
  });

  it("writes one event and one outbox row per transition, none for a lost race", async () => {
    const db = await getDb();
    const p = await seedPayment(m, "awaiting_customer");
    const base = { db, clock: systemClock };
    const first = await transitionPayment(base, { paymentId: p.id, to: "succeeded" });
    const second = await transitionPayment(base, { paymentId: p.id, to: "succeeded" });
    const late = await transitionPayment(base, { paymentId: p.id, to: "failed", failure });
    expect([first.changed, second.changed, late.changed]).toEqual([true, false, false]);
    expect(late.payment.status).toBe("succeeded");
    const evts = await eventsFor(p.id);
    expect(evts.map((e) => e.type)).toEqual(["payment.succeeded"]);
    const relays = await db.select().from(outbox).where(sql`${outbox.payload}->>'event_id' = ${evts[0]!.id}`);
    expect(relays).toHaveLength(1);
    expect(relays[0]).toMatchObject({ topic: "event/created" });
  });

  it("refuses to fail a payment without the provider's reason", async () => {
    const db = await getDb();
    const p = await seedPayment(m, "awaiting_customer");
    await expect(transitionPayment({ db, clock: systemClock }, { paymentId: p.id, to: "failed" })).rejects.toThrow(/decline reason/);
    expect((await eventsFor(p.id)).length).toBe(0);
  });
});
