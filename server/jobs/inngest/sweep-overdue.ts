import { cron } from "inngest";
import { log } from "@/server/log";
import { sweepExpiredIdempotencyKeys } from "@/server/services/idempotency/sweep-expired-keys";
import { sweepOldPaymentDays } from "@/server/services/overview/payment-days";
import { attemptDelivery } from "@/server/services/webhooks/attempt-delivery";
import { fanOutEvents } from "@/server/services/webhooks/fan-out-events";
import { payDueSettlements } from "@/server/services/settlements/pay-settlement";
import { drainBatches, drainDue } from "../due-batch";
import { claimDueDeliveries } from "../due-work";
import { carryOnReplaysPart } from "./carry-on-replays";
import { inngest, scheduleDeliveries } from "./client";
import { jobDeps } from "./deps";

const BATCH = 200;
/** A delivery or refund this late past its time lost its function (a send or a run that never came). */
const GRACE_MS = 2 * 60_000;
/**
 * How long one kind's step goes on claiming batches while a backlog remains (the next minute's run
 * goes on with the rest): long enough to clear thousands of expiries, short enough for one request.
 */
const PART_BUDGET_MS = 15_000;

/**
 * Every minute: whatever is overdue because a send was lost, a function failed for good or the
 * backoff schedule ran out, is claimed (SKIP LOCKED leases, as the local runner does) and run; and
 * idempotency records past their 24 h are deleted.
 */
export const sweepOverdueFn = inngest.createFunction(
  { id: "sweep-overdue", triggers: [cron("* * * * *")], concurrency: 1 },
  async ({ step }) => {
    // Batch after batch while a backlog remains; a payment or refund that fails is logged and left
    // due when its lease ends, holding up neither its batch nor the steps after it.
    const expired = await step.run("expire-overdue", async () => drainDue(await jobDeps(), "expiry", { budgetMs: PART_BUDGET_MS }));
    const reconciled = await step.run("reconcile-overdue", async () => drainDue(await jobDeps(), "reconcile", { budgetMs: PART_BUDGET_MS }));
    // Pending refunds whose advance-refund run was lost, failed for good or ran out of steps.
    const refunds = await step.run("refunds-overdue", async () =>
      drainDue(await jobDeps(), "refunds", { budgetMs: PART_BUDGET_MS, refundGraceMs: GRACE_MS }),
    );
    // Test payouts whose own function never ran (a lost send): paid at most a minute late.
    const paidOut = await step.run("pay-due-test-settlements", async () => (await payDueSettlements(await jobDeps(), { limit: BATCH })).length);
    // Window replays whose runner died (or whose hand-back was never sent): carried on from their
    // cursor for a part's budget, then handed back to carry-on-replays.
    const replays = await step.run("carry-on-replays", carryOnReplaysPart);
    const forgotten = await step.run("forget-expired-idempotency-keys", async () => sweepExpiredIdempotencyKeys(await jobDeps(), 5_000));
    // The overview's day totals, and the marks of late changes, of days no overview reads any more.
    const oldDays = await step.run("forget-old-payment-days", async () => sweepOldPaymentDays(await jobDeps(), 5_000));
    // Deliveries whose function should have run minutes ago, batch after batch while a backlog
    // remains (their sends were lost in an outage of Inngest's).
    const redelivered = await step.run("deliver-overdue", async () => {
      const deps = await jobDeps();
      return drainBatches(
        async () => {
          const ids = await claimDueDeliveries(deps.db, deps.clock.now(), BATCH, { overdueMs: GRACE_MS });
          // One attempt's failure must not fail the step while the others run on unawaited: each is
          // logged, and its delivery is due again when its lease ends.
          const results = await Promise.allSettled(ids.map((id) => attemptDelivery(deps, id)));
          results.forEach((r, i) => {
            if (r.status === "rejected") log.error("overdue webhook attempt failed; due again when its lease ends", { delivery: ids[i], error: r.reason });
          });
          return ids.length;
        },
        BATCH,
        PART_BUDGET_MS,
      );
    });
    // Events whose relay send was lost. Last, as the only step that sends to Inngest: a send it
    // refuses (an outage) fails this run after the rest has run, not before.
    const relayed = await step.run("relay-events", async () => (await fanOutEvents(await jobDeps(), { limit: 500 })).deliveries);
    await scheduleDeliveries(relayed, (id, chunk) => step.sendEvent(id, chunk));
    return { expired, reconciled, refunds, relayed: relayed.length, redelivered, paidOut, replays, forgotten, oldDays };
  },
);
