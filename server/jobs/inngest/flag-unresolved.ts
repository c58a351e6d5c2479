import { UNRESOLVED_AFTER_MS } from "@/server/domain/reconcile-schedule";
import { reconcilePayment } from "@/server/services/payments/reconcile-payment";
import { inngest, paymentUnknown } from "./client";
import { jobDeps } from "./deps";
import { EARLY_WAKE_ROUNDS, waitAgainMs } from "./early-wake";

/**
 * payment/unknown → sleep 24 h → the check the local runner makes then: ask the provider, apply
 * an answer it now has, and only without one flag the payment unresolved (payment.unresolved).
 * A no-op if it moved on. Woken before the 24 h by this server's clock, it waits the difference.
 */
export const flagUnresolvedFn = inngest.createFunction(
  { id: "flag-unresolved", triggers: [paymentUnknown], retries: 10 },
  async ({ event, step }) => {
    const dueAt = new Date(new Date(event.data.unknown_since).getTime() + UNRESOLVED_AFTER_MS);
    await step.sleepUntil("wait-24h", dueAt);
    for (let round = 0; ; round++) {
      const checked = await step.run(round === 0 ? "flag" : `flag-${round}`, async () => {
        const deps = await jobDeps();
        const payment = await reconcilePayment(deps, event.data.payment_id);
        const early = payment?.status === "unknown" ? waitAgainMs(dueAt, deps.clock.now()) : null;
        return { status: payment?.status ?? "missing", waitMs: early };
      });
      if (checked.waitMs === null || round === EARLY_WAKE_ROUNDS) return { status: checked.status };
      await step.sleep(`wait-24h-${round + 1}`, checked.waitMs);
    }
  },
);
