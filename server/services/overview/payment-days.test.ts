import { and, eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { getDb } from "@/db/client";
import { paymentDayChanges, paymentDayTotals, payments } from "@/db/schema";
import { manualClock } from "@/server/clock";
import { env } from "@/server/env";
import { seedPayment, seedTestMerchant, type TestMerchant } from "@/server/testing/fixtures";
import { getOverview } from "./get-overview";
import { harareDay } from "@/server/domain/harare-time";
import { paymentDayBuckets, sweepOldPaymentDays } from "./payment-days";

// Wednesday 11 March 2026, 12:00 in Harare. Every day here is over by the database's clock, so
// each payment written for one of them marks it changed, as a late change would.
const NOW = new Date("2026-03-11T10:00:00Z");
const TUE = harareDay(new Date("2026-03-10T10:00:00Z"));
const WED = harareDay(NOW);

async function world() {
  const m = await seedTestMerchant();
  const db = await getDb();
  const clock = manualClock(NOW);
  const ctx = () => m.ctx(false, clock);
  const stored = async () =>
    (await db.select().from(paymentDayTotals).where(eq(paymentDayTotals.merchantId, m.merchant.id))).sort((a, b) => a.day - b.day);
  const changes = async () => db.select().from(paymentDayChanges).where(eq(paymentDayChanges.merchantId, m.merchant.id));
  const tuesdayUsd = async () => (await getOverview(await ctx())).days.find((d) => d.date === "2026-03-10")!.volume.USD;
  return { m, db, clock, ctx, stored, changes, tuesdayUsd };
}

const pay = (m: TestMerchant, at: string, amount: number, status: "succeeded" | "failed" = "succeeded") => seedPayment(m, status, { at: new Date(at), amount });

describe("the overview's stored day totals", () => {
  it("are stored for days over an hour ago, read back instead of the rows, and never for today", async () => {
    const w = await world();
    await pay(w.m, "2026-03-10T09:00:00Z", 1_000);
    await pay(w.m, "2026-03-11T09:00:00Z", 300);

    expect(await w.tuesdayUsd()).toBe(1_000);
    const rows = await w.stored();
    // Thirteen days over, each stored (an empty one too); today is summed on every read.
    expect(rows.map((r) => r.day)).toEqual(Array.from({ length: 13 }, (_, i) => WED - 13 + i));
    expect(rows.find((r) => r.day === TUE)!.buckets).toEqual([{ status: "succeeded", currency: "USD", n: 1, amount: 1_000, refunded: 0 }]);
    // Tuesday's mark is cleared with its totals stored; today's (a day over by the database's
    // clock, not by this test's) stays until today is stored.
    expect((await w.changes()).map((c) => c.day)).toEqual([WED]);

    // Read back, not summed again: a stored figure changed behind its back is what the overview shows.
    await w.db
      .update(paymentDayTotals)
      .set({ buckets: [{ status: "succeeded", currency: "USD", n: 1, amount: 7_777, refunded: 0 }] })
      .where(and(eq(paymentDayTotals.merchantId, w.m.merchant.id), eq(paymentDayTotals.day, TUE)));
    expect(await w.tuesdayUsd()).toBe(7_777);
    // Today is read from the rows every time.
    await pay(w.m, "2026-03-11T09:30:00Z", 50);
    expect((await getOverview(await w.ctx())).today.volume.USD).toBe(350);
  });

  it("do not store yesterday in the first hour after midnight", async () => {
    const w = await world();
    await pay(w.m, "2026-03-10T09:00:00Z", 1_000);
    // 00:30 on Thursday the 12th in Harare.
    w.clock.set(new Date("2026-03-11T22:30:00Z"));
    const buckets = await paymentDayBuckets(await w.ctx(), WED - 1, WED + 1);
    expect(buckets.get(WED - 1)).toEqual([{ status: "succeeded", currency: "USD", n: 1, amount: 1_000, refunded: 0 }]);
    expect((await w.stored()).map((r) => r.day)).toEqual([WED - 1]);
    // At 01:00 it is.
    w.clock.set(new Date("2026-03-11T23:00:00Z"));
    await paymentDayBuckets(await w.ctx(), WED - 1, WED + 1);
    expect((await w.stored()).map((r) => r.day)).toEqual([WED - 1, WED]);
  });

  it("are summed again after a late change to one of the day's payments: an outcome, a refund, a row added or removed", async () => {
    const w = await world();
    const late = await pay(w.m, "2026-03-10T09:00:00Z", 1_000, "failed");
    const refunded = await pay(w.m, "2026-03-10T10:00:00Z", 2_000);
    expect(await w.tuesdayUsd()).toBe(2_000);

    // The outcome moves: the trigger marks Tuesday, and the next read sums it again and clears the mark.
    await w.db.update(payments).set({ status: "succeeded" }).where(eq(payments.id, late.id));
    expect((await w.changes()).map((c) => c.day)).toEqual([TUE]);
    expect(await w.tuesdayUsd()).toBe(3_000);
    expect(await w.changes()).toEqual([]);

    await w.db.update(payments).set({ amountRefunded: 500 }).where(eq(payments.id, refunded.id));
    expect((await getOverview(await w.ctx())).week.refunded.USD).toBe(500);

    const added = await pay(w.m, "2026-03-10T11:00:00Z", 4_000);
    expect(await w.tuesdayUsd()).toBe(7_000);
    await w.db.delete(payments).where(eq(payments.id, added.id));
    expect(await w.tuesdayUsd()).toBe(3_000);

    // A write that moves nothing the totals hold (a settlement's batch id) marks nothing.
    await w.db.update(payments).set({ updatedAt: new Date() }).where(eq(payments.id, late.id));
    expect(await w.changes()).toEqual([]);
  });

  it("of another merchant or environment are apart", async () => {
    const w = await world();
    const other = await world();
    await pay(w.m, "2026-03-10T09:00:00Z", 1_000);
    await seedPayment(w.m, "succeeded", { at: new Date("2026-03-10T09:00:00Z"), amount: 5_000, livemode: true });
    await pay(other.m, "2026-03-10T09:00:00Z", 9_000);
    expect(await w.tuesdayUsd()).toBe(1_000);
    expect(await other.tuesdayUsd()).toBe(9_000);
    expect((await getOverview(await w.m.ctx(true, w.clock))).days.find((d) => d.date === "2026-03-10")!.volume.USD).toBe(5_000);
    // A change to the other merchant's day leaves this one's stored totals standing.
    await other.db.update(payments).set({ amountRefunded: 1 }).where(eq(payments.merchantId, other.m.merchant.id));
    expect((await w.changes()).length).toBe(0);
  });

  it("and their changes are swept once older than the days anyone reads", async () => {
    const w = await world();
    await pay(w.m, "2026-02-20T09:00:00Z", 1_000);
    await pay(w.m, "2026-03-10T09:00:00Z", 1_000);
    await paymentDayBuckets(await w.ctx(), harareDay(new Date("2026-02-20T09:00:00Z")), WED);
    const feb20 = harareDay(new Date("2026-02-20T09:00:00Z"));
    await w.db.update(payments).set({ amountRefunded: 1 }).where(eq(payments.merchantId, w.m.merchant.id));
    expect((await w.changes()).map((c) => c.day).sort()).toEqual([feb20, TUE]);

    // Every merchant's: the sweep knows no merchant.
    while ((await sweepOldPaymentDays({ db: w.db, clock: w.clock }, 2)) === 2);
    expect((await w.changes()).map((c) => c.day)).toEqual([TUE]);
    expect((await w.stored()).every((r) => r.day >= WED - 15)).toBe(true);
  });

  // Two sessions: a change still uncommitted while the overview stores the day.
  it.runIf(env().DATABASE_URL)("keep the mark of a change committed while they were being stored, so the next read sums the day again", async () => {
    const w = await world();
    const p = await pay(w.m, "2026-03-10T09:00:00Z", 1_000, "failed");
    await paymentDayBuckets(await w.ctx(), TUE, TUE);

    let release!: () => void;
    let written!: () => void;
    const wrote = new Promise<void>((resolve) => (written = resolve));
    const change = w.db.transaction(async (tx) => {
      await tx.update(payments).set({ status: "succeeded" }).where(eq(payments.id, p.id));
      written();
      await new Promise<void>((resolve) => (release = resolve));
    });
    await wrote;
    // Its mark is not visible yet, so the day is read as stored, then summed (a mark from before
    // makes it sum it and store it).
    await w.db.insert(paymentDayChanges).values({ merchantId: w.m.merchant.id, livemode: false, day: TUE });
    expect((await paymentDayBuckets(await w.ctx(), TUE, TUE)).get(TUE)).toEqual([{ status: "failed", currency: "USD", n: 1, amount: 1_000, refunded: 0 }]);
    release();
    await change;

    expect((await w.changes()).length).toBe(1);
    expect((await paymentDayBuckets(await w.ctx(), TUE, TUE)).get(TUE)).toEqual([{ status: "succeeded", currency: "USD", n: 1, amount: 1_000, refunded: 0 }]);
    expect(await w.changes()).toEqual([]);
  });
});
