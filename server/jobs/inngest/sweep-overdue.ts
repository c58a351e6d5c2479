import { cron } from "inngest";
import { log } from "@/server/log";
import { sweepExpiredIdempotencyKeys } from "@/server/services/idempotency/sweep-expired-keys";
import { expireClaimed } from "@/server/services/payments/expire-payment";
import { reconcileClaimed } from "@/server/services/payments/reconcile-payment";
import { advanceRefund } from "@/server/services/refunds/advance-refund";
import { attemptDelivery } from "@/server/services/webhooks/attempt-delivery";
import { fanOutEvents } from "@/server/services/webhooks/fan-out-events";
import { payDueSettlements } from "@/server/services/settlements/pay-settlement";
import { claimDueDeliveries, claimDuePayments, claimDueRefunds } from "../due-work";
import { deliveryScheduled, inngest } from "./client";
import { jobDeps } from "./deps";

const BATCH = 200;
/** A delivery or refund this late past its time lost its function (a send or a run that never came). */
const GRACE_MS = 2 * 60_000;

/**
 * Every minute: whatever is overdue because a send was lost, a function failed for good or the
 * backoff schedule ran out, is claimed (SKIP LOCKED leases, as the local runner does) and run; and
 * idempotency records past their 24 h are deleted.
 */
export const sweepOverdueFn = inngest.createFunction(
  { id: "sweep-overdue", triggers: [cron("* * * * *")], concurrency: 1 },
  async ({ step }) => {
    const expired = await step.run("expire-overdue", async () => {
      const deps = await jobDeps();
      const claimed = await claimDuePayments(deps.db, "expiry", deps.clock.now(), BATCH);
      await expireClaimed(deps, claimed);
      return claimed.length;
    });
    const reconciled = await step.run("reconcile-overdue", async () => {
      const deps = await jobDeps();
      const claimed = await claimDuePayments(deps.db, "reconcile", deps.clock.now(), BATCH);
      for (const payment of claimed) await reconcileClaimed(deps, payment);
      return claimed.length;
    });
    // Pending refunds whose advance-refund run was lost, failed for good or ran out of steps.
    const refunds = await step.run("refunds-overdue", async () => {
      const deps = await jobDeps();
      const ids = await claimDueRefunds(deps.db, deps.clock.now(), BATCH, { overdueMs: GRACE_MS });
      // One refund's failure must not hold up the others: it is due again when its lease ends.
      for (const id of ids) {
        await advanceRefund(deps, id).catch((e: unknown) => log.error("overdue refund failed; due again when its lease ends", { refund: id, error: e }));
      }
      return ids.length;
    });
    // Events whose relay send was lost, and deliveries whose function should have run minutes ago.
    const relayedIds = await step.run("relay-events", async () => (await fanOutEvents(await jobDeps(), { limit: 500 })).deliveryIds);
    if (relayedIds.length) {
      await step.sendEvent("schedule-deliveries", relayedIds.map((id) => deliveryScheduled.create({ delivery_id: id }, { id })));
    }
    const redelivered = await step.run("deliver-overdue", async () => {
      const deps = await jobDeps();
      const ids = await claimDueDeliveries(deps.db, deps.clock.now(), BATCH, { overdueMs: GRACE_MS });
      await Promise.all(ids.map((id) => attemptDelivery(deps, id)));
      return ids.length;
    });
    // Test payouts whose own function never ran (a lost send): paid at most a minute late.
    const paidOut = await step.run("pay-due-test-settlements", async () => (await payDueSettlements(await jobDeps(), { limit: BATCH })).length);
    const forgotten = await step.run("forget-expired-idempotency-keys", async () => sweepExpiredIdempotencyKeys(await jobDeps(), 5_000));
    return { expired, reconciled, refunds, relayed: relayedIds.length, redelivered, paidOut, forgotten };
  },
);
