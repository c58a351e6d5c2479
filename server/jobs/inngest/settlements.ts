import { cron } from "inngest";
import { dailyCutoff } from "@/server/domain/settlements";
import { payDueSettlements } from "@/server/services/settlements/pay-settlement";
import { runSettlements } from "@/server/services/settlements/run-settlements";
import { inngest, settlementCreated } from "./client";
import { jobDeps } from "./deps";

/**
 * The scheduler fires at midnight by its own clock, which this server's may trail by a moment. The
 * cutoff is the Harare midnight at most this far ahead of this server's clock: read as "the last
 * midnight", a clock 1 ms behind named the midnight a day earlier, whose batches were made
 * already, and the day that just ended waited another day for its payout.
 */
const SCHEDULER_SKEW_MS = 10 * 60_000;

/**
 * Every day at midnight in Harare: one batch per merchant + environment + currency of what
 * succeeded before midnight and is not settled yet; the test batches it makes are paid out by
 * `payout-test-settlement`. It runs again every hour with the same cutoff: a run that failed for
 * good (the database down past its retries) is taken up within the hour, not at the next midnight.
 * Running it again batches nothing twice, and a run after the day's batches reads only what is
 * left before the cutoff (an index by success time), not the day's newer items.
 */
export const settleDailyFn = inngest.createFunction(
  { id: "settle-daily", triggers: [cron("TZ=Africa/Harare 0 * * * *")], concurrency: 1, retries: 5 },
  async ({ step }) => {
    const made = await step.run("make-batches", async () => {
      const deps = await jobDeps();
      const cutoff = dailyCutoff(new Date(deps.clock.now().getTime() + SCHEDULER_SKEW_MS));
      const batches = await runSettlements(deps, { cutoff });
      return batches.map((s) => ({ id: s.id, payAfter: s.payAfter?.toISOString() ?? null }));
    });
    const payouts = made.flatMap((s) => (s.payAfter ? [settlementCreated.create({ settlement_id: s.id, pay_after: s.payAfter }, { id: s.id })] : []));
    if (payouts.length) await step.sendEvent("schedule-test-payouts", payouts);
    return { batches: made.length };
  },
);

/** settlement/created (test mode) → sleep until pay_after → paid, with its settlement.paid event. */
export const payoutTestSettlementFn = inngest.createFunction(
  { id: "payout-test-settlement", triggers: [settlementCreated], retries: 10 },
  async ({ event, step }) => {
    await step.sleepUntil("wait-for-payout", event.data.pay_after);
    return step.run("pay-out", async () => {
      const paid = await payDueSettlements(await jobDeps(), { limit: 1, ids: [event.data.settlement_id] });
      return { paid: paid.length };
    });
  },
);
