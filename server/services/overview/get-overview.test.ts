import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { getDb } from "@/db/client";
import { payments, webhookEndpoints } from "@/db/schema";
import { manualClock } from "@/server/clock";
import { newId } from "@/server/domain/ids";
import type { PaymentStatus } from "@/server/domain/payment-status";
import { seedPayment, seedTestMerchant, type TestMerchant } from "@/server/testing/fixtures";
import { getOverview } from "./get-overview";

// Wednesday 11 March 2026, 12:00 in Harare (UTC+2): the week began on Monday the 9th.
const NOW = new Date("2026-03-11T10:00:00Z");

async function pay(m: TestMerchant, status: PaymentStatus, at: string, opts: { amount?: number; currency?: "USD" | "ZWG"; livemode?: boolean } = {}) {
  const row = await seedPayment(m, status, { at: new Date(at), amount: opts.amount, livemode: opts.livemode });
  if (opts.currency === "ZWG") await (await getDb()).update(payments).set({ currency: "ZWG" }).where(eq(payments.id, row.id));
  return row;
}

async function endpoint(m: TestMerchant, degradedSince: Date | null, opts: { livemode?: boolean; deleted?: boolean } = {}) {
  const db = await getDb();
  const id = newId("webhookEndpoint");
  await db.insert(webhookEndpoints).values({
    id,
    merchantId: m.merchant.id,
    livemode: opts.livemode ?? false,
    url: `https://example.test/hooks/${id}`,
    enabledEvents: ["*"],
    secret: "whsec_test",
    consecutiveFailures: degradedSince ? 5 : 0,
    degradedSince,
    createdAt: NOW,
    updatedAt: NOW,
    deletedAt: opts.deleted ? NOW : null,
  });
  return id;
}

describe("getOverview", () => {
  it("sums succeeded volume per currency, counts by status and rates success, by Harare day", async () => {
    const m = await seedTestMerchant();
    const other = await seedTestMerchant();
    await pay(m, "succeeded", "2026-03-11T09:00:00Z", { amount: 1_000 });
    await pay(m, "succeeded", "2026-03-11T08:00:00Z", { amount: 500, currency: "ZWG" });
    await pay(m, "failed", "2026-03-11T07:00:00Z");
    await pay(m, "unknown", "2026-03-11T09:30:00Z");
    // 01:00 on the 11th in Harare, though still the 10th in UTC.
    await pay(m, "expired", "2026-03-10T23:00:00Z");
    // 23:30 on the 10th in Harare: this week, not today.
    await pay(m, "succeeded", "2026-03-10T21:30:00Z", { amount: 1_000 });
    // 02:30 on Monday the 9th in Harare: this week.
    await pay(m, "succeeded", "2026-03-09T00:30:00Z", { amount: 1_000 });
    // 23:00 on Sunday the 8th in Harare: last week, still in the 14-day chart.
    await pay(m, "succeeded", "2026-03-08T21:00:00Z", { amount: 700 });
    // Outside the chart's window.
    await pay(m, "succeeded", "2026-02-19T10:00:00Z", { amount: 9_999 });
    // Another environment and another merchant never count.
    await pay(m, "succeeded", "2026-03-11T09:00:00Z", { amount: 5_000, livemode: true });
    await pay(other, "succeeded", "2026-03-11T09:00:00Z", { amount: 7_000 });

    const o = await getOverview(await m.ctx(false, manualClock(NOW)));
    expect(o.today.date).toBe("2026-03-11");
    expect(o.today.volume).toEqual({ USD: 1_000, ZWG: 500 });
    expect(o.today.counts).toEqual({ awaiting_customer: 0, succeeded: 2, failed: 1, expired: 1, unknown: 1, unresolved: 0 });
    expect(o.today.successRate).toBe(0.5);

    expect(o.week.from).toBe("2026-03-09");
    expect(o.week.volume).toEqual({ USD: 3_000, ZWG: 500 });
    expect(o.week.counts.succeeded).toBe(4);
    expect(o.week.successRate).toBeCloseTo(4 / 6);

    expect(o.days).toHaveLength(14);
    expect(o.days[0]!.date).toBe("2026-02-26");
    expect(o.days.at(-1)).toMatchObject({ date: "2026-03-11", volume: { USD: 1_000, ZWG: 500 }, succeeded: 2, total: 5 });
    expect(o.days.find((d) => d.date === "2026-03-08")).toMatchObject({ volume: { USD: 700, ZWG: 0 }, succeeded: 1, total: 1 });
    expect(o.days.reduce((s, d) => s + d.volume.USD, 0)).toBe(3_700);

    const live = await getOverview(await m.ctx(true, manualClock(NOW)));
    expect(live.today.volume).toEqual({ USD: 5_000, ZWG: 0 });
    expect(live.week.successRate).toBe(1);
  });

  it("cuts the days at midnight in Harare, to the millisecond", async () => {
    const m = await seedTestMerchant();
    // 23:59:59.999 on the 10th in Harare, then midnight on the 11th.
    await pay(m, "succeeded", "2026-03-10T21:59:59.999Z", { amount: 100 });
    await pay(m, "succeeded", "2026-03-10T22:00:00.000Z", { amount: 200 });
    // The window's first instant (00:00 on 26 February in Harare) and the one before it.
    await pay(m, "succeeded", "2026-02-25T22:00:00.000Z", { amount: 400 });
    await pay(m, "succeeded", "2026-02-25T21:59:59.999Z", { amount: 800 });

    const o = await getOverview(await m.ctx(false, manualClock(NOW)));
    expect(o.days.find((d) => d.date === "2026-03-10")).toMatchObject({ volume: { USD: 100 }, total: 1 });
    expect(o.today).toMatchObject({ volume: { USD: 200 } });
    expect(o.days[0]).toMatchObject({ date: "2026-02-26", volume: { USD: 400 }, total: 1 });
    expect(o.days.reduce((s, d) => s + d.total, 0)).toBe(3);
  });

  it("keeps the volume gross and says how much of it was refunded", async () => {
    const m = await seedTestMerchant();
    const db = await getDb();
    const whole = await pay(m, "succeeded", "2026-03-11T09:00:00Z", { amount: 1_000 });
    const part = await pay(m, "succeeded", "2026-03-10T09:00:00Z", { amount: 2_000 });
    await pay(m, "succeeded", "2026-03-11T08:00:00Z", { amount: 400 });
    await db.update(payments).set({ amountRefunded: 1_000 }).where(eq(payments.id, whole.id));
    await db.update(payments).set({ amountRefunded: 250 }).where(eq(payments.id, part.id));

    const o = await getOverview(await m.ctx(false, manualClock(NOW)));
    expect(o.today).toMatchObject({ volume: { USD: 1_400, ZWG: 0 }, refunded: { USD: 1_000, ZWG: 0 } });
    expect(o.week).toMatchObject({ volume: { USD: 3_400, ZWG: 0 }, refunded: { USD: 1_250, ZWG: 0 } });
  });

  it("has no success rate before anything finished", async () => {
    const m = await seedTestMerchant();
    await pay(m, "awaiting_customer", "2026-03-11T09:00:00Z");
    const o = await getOverview(await m.ctx(false, manualClock(NOW)));
    expect(o.today.successRate).toBeNull();
    expect(o.today.counts.awaiting_customer).toBe(1);
  });

  it("lists unresolved payments and degraded endpoints of this merchant and environment only", async () => {
    const m = await seedTestMerchant();
    const other = await seedTestMerchant();
    const mine = [await pay(m, "unresolved", "2026-03-01T09:00:00Z"), await pay(m, "unresolved", "2026-03-05T09:00:00Z")];
    await pay(m, "unresolved", "2026-03-05T09:00:00Z", { livemode: true });
    await pay(other, "unresolved", "2026-03-05T09:00:00Z");
    await pay(m, "unknown", "2026-03-05T09:00:00Z");
    const degraded = await endpoint(m, new Date("2026-03-10T08:00:00Z"));
    await endpoint(m, null);
    await endpoint(m, new Date("2026-03-10T08:00:00Z"), { deleted: true });
    await endpoint(m, new Date("2026-03-10T08:00:00Z"), { livemode: true });
    await endpoint(other, new Date("2026-03-10T08:00:00Z"));

    const o = await getOverview(await m.ctx(false, manualClock(NOW)));
    expect(o.unresolved.count).toBe(2);
    expect(o.unresolved.recent.map((p) => p.id)).toEqual([mine[1]!.id, mine[0]!.id]);
    expect(o.degradedEndpoints.map((e) => e.id)).toEqual([degraded]);
  });
});
