import { UNKNOWN_CHECK_DELAYS_S } from "@/server/domain/reconcile-schedule";
import { reconcilePayment } from "@/server/services/payments/reconcile-payment";
import { inngest, paymentUnknown } from "./client";
import { jobDeps } from "./deps";

/**
 * payment/unknown → ask the provider on the backoff schedule until the outcome is known. The
 * sweeper keeps asking (more slowly) after the schedule runs out, so nothing is ever dropped.
 */
export const reconcileUnknownFn = inngest.createFunction(
  { id: "reconcile-unknown", triggers: [paymentUnknown], retries: 10 },
  async ({ event, step }) => {
    for (const [i, seconds] of UNKNOWN_CHECK_DELAYS_S.entries()) {
      await step.sleep(`wait-${i}`, seconds * 1000);
      const status = await step.run(`check-${i}`, async () => {
        const payment = await reconcilePayment(await jobDeps(), event.data.payment_id);
        return payment?.status ?? "missing";
      });
      if (status !== "unknown" && status !== "unresolved") return { status, checks: i + 1 };
    }
    return { status: "still unknown", checks: UNKNOWN_CHECK_DELAYS_S.length };
  },
);
