import { cron } from "inngest";
import { sweepExpiredIdempotencyKeys } from "@/server/services/idempotency/sweep-expired-keys";
import { expirePayment } from "@/server/services/payments/expire-payment";
import { reconcilePayment } from "@/server/services/payments/reconcile-payment";
import { claimDue } from "../due-work";
import { inngest } from "./client";
import { jobDeps } from "./deps";

const BATCH = 200;

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
      const ids = await claimDue(deps.db, "expiry", deps.clock.now(), BATCH);
      for (const id of ids) await expirePayment(deps, id);
      return ids.length;
    });
    const reconciled = await step.run("reconcile-overdue", async () => {
      const deps = await jobDeps();
      const ids = await claimDue(deps.db, "reconcile", deps.clock.now(), BATCH);
      for (const id of ids) await reconcilePayment(deps, id);
      return ids.length;
    });
    const forgotten = await step.run("forget-expired-idempotency-keys", async () => sweepExpiredIdempotencyKeys(await jobDeps(), 5_000));
    return { expired, reconciled, forgotten };
  },
);
