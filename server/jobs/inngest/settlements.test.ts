import { InngestTestEngine } from "@inngest/test";
import { eq } from "drizzle-orm";
import { describe, expect, it, vi } from "vitest";
import { getDb } from "@/db/client";
import { events, payments, settlements } from "@/db/schema";
import { manualClock } from "@/server/clock";
import { TEST_PAYOUT_DELAY_MS } from "@/server/domain/settlements";
import { payDueSettlements } from "@/server/services/settlements/pay-settlement";
import { runSettlements } from "@/server/services/settlements/run-settlements";
import { seedPayment, seedTestMerchant } from "@/server/testing/fixtures";
import { payoutTestSettlementFn, settleDailyFn } from "./settlements";

/** A run of settle-daily (on the real database) with this server's clock reading `at`. */
async function settleDailyAt(at: Date): Promise<void> {
  vi.useFakeTimers({ toFake: ["Date"] });
  vi.setSystemTime(at);
  try {
    await new InngestTestEngine({ function: settleDailyFn }).execute({ steps: [{ id: "schedule-test-payouts", handler: () => undefined }] });
  } finally {
    vi.useRealTimers();
  }
}

describe("settlement functions", () => {
  it("settle-daily makes the batches and schedules one payout run per test batch", async () => {
    // The batching itself is runSettlements (tested on the database); on a database shared with
    // other test files a real daily run would batch their payments too, so the step is mocked.
    const t = new InngestTestEngine({ function: settleDailyFn });
    const { result, ctx } = await t.execute({
      steps: [
        {
          id: "make-batches",
          handler: () => [
            { id: "stl_test", payAfter: "2026-11-22T00:00:05.000Z" },
            { id: "stl_live", payAfter: null },
          ],
        },
        { id: "schedule-test-payouts", handler: () => undefined },
      ],
    });
    expect(result).toEqual({ batches: 2 });
    expect(ctx.step.sendEvent).toHaveBeenCalledWith("schedule-test-payouts", [
      expect.objectContaining({ name: "settlement/created", data: { settlement_id: "stl_test", pay_after: "2026-11-22T00:00:05.000Z" }, id: "stl_test" }),
    ]);
  });

  it("settle-daily batches the day that just ended even when this server's clock is a moment behind the scheduler's", async () => {
    const db = await getDb();
    const m = await seedTestMerchant();
    // Harare midnight of 1999-06-16 (UTC+2): long before other tests' payments, so the real run on
    // a shared database batches little besides this merchant's payment.
    const midnight = new Date("1999-06-15T22:00:00Z");
    const paid = await seedPayment(m, "succeeded", { amount: 5_000, at: new Date(midnight.getTime() - 6 * 3_600_000) });
    // The scheduler fires at midnight by its clock; this server's reads 23:59:59.8 (clocks are never
    // exactly equal). The cutoff must still be this midnight, not the one a day before.
    await settleDailyAt(new Date(midnight.getTime() - 200));
    const [row] = await db.select({ settlementId: payments.settlementId }).from(payments).where(eq(payments.id, paid.id));
    expect(row!.settlementId).not.toBeNull();
    const [batch] = await db.select().from(settlements).where(eq(settlements.id, row!.settlementId!));
    expect(batch!.periodEnd).toEqual(midnight);
    // Paid out here, as its payout run would: no batch of 1999 is left due for other tests' runners to find.
    expect(await payDueSettlements({ db, clock: manualClock(new Date()) }, { limit: 10, ids: [batch!.id] })).toHaveLength(1);
  });

  it("settle-daily runs again every hour: a run hours after midnight takes up a day whose midnight run failed", async () => {
    expect(settleDailyFn.opts.triggers).toEqual([{ cron: "TZ=Africa/Harare 0 * * * *" }]);
    const db = await getDb();
    const m = await seedTestMerchant();
    // Harare midnight of 1999-07-02; midnight's run left this payment (the database was down).
    const midnight = new Date("1999-07-01T22:00:00Z");
    const paid = await seedPayment(m, "succeeded", { amount: 5_000, at: new Date(midnight.getTime() - 3_600_000) });
    await settleDailyAt(new Date(midnight.getTime() + 7 * 3_600_000));
    const [row] = await db.select({ settlementId: payments.settlementId }).from(payments).where(eq(payments.id, paid.id));
    const [batch] = await db.select().from(settlements).where(eq(settlements.id, row!.settlementId!));
    expect(batch!.periodEnd).toEqual(midnight);
    expect(await payDueSettlements({ db, clock: manualClock(new Date()) }, { limit: 10, ids: [batch!.id] })).toHaveLength(1);
  });

  it("payout-test-settlement sleeps until pay_after, then pays the batch once", async () => {
    const db = await getDb();
    const m = await seedTestMerchant();
    await seedPayment(m, "succeeded", { amount: 5_000, at: new Date(Date.now() - 60_000) });
    // Made as if TEST_PAYOUT_DELAY_MS ago, so pay_after has come (the mocked sleep stands for the wait).
    const [s] = await runSettlements({ db, clock: manualClock(new Date(Date.now() - TEST_PAYOUT_DELAY_MS)) }, { cutoff: new Date(), merchantId: m.merchant.id });
    const t = new InngestTestEngine({ function: payoutTestSettlementFn });
    const event = { name: "settlement/created", data: { settlement_id: s!.id, pay_after: s!.payAfter!.toISOString() } };
    const first = await t.execute({ events: [event], steps: [{ id: "wait-for-payout", handler: () => undefined }] });
    expect(first.result).toEqual({ paid: 1 });
    expect(first.ctx.step.sleepUntil).toHaveBeenCalledWith("wait-for-payout", s!.payAfter!.toISOString());
    // A second run of the same event (a retry) pays nothing twice.
    const again = await new InngestTestEngine({ function: payoutTestSettlementFn }).execute({ events: [event], steps: [{ id: "wait-for-payout", handler: () => undefined }] });
    expect(again.result).toEqual({ paid: 0 });
    expect((await db.select().from(settlements).where(eq(settlements.id, s!.id)))[0]!.status).toBe("paid");
    expect((await db.select().from(events).where(eq(events.objectId, s!.id))).map((e) => e.type)).toEqual(["settlement.paid"]);
  });
});
