import { reconcilePayment } from "@/server/services/payments/reconcile-payment";
import { inngest, paymentUnknown } from "./client";
import { jobDeps } from "./deps";

/**
 * payment/unknown → sleep 24 h → the check the local runner makes then: ask the provider, apply
 * an answer it now has, and only without one flag the payment unresolved (payment.unresolved).
 * A no-op if it moved on.
 */
export const flagUnresolvedFn = inngest.createFunction(
  { id: "flag-unresolved", triggers: [paymentUnknown], retries: 10 },
  async ({ event, step }) => {
    await step.sleepUntil("wait-24h", new Date(new Date(event.data.unknown_since).getTime() + 24 * 3600 * 1000));
    return step.run("flag", async () => {
      const payment = await reconcilePayment(await jobDeps(), event.data.payment_id);
      return { status: payment?.status ?? "missing" };
    });
  },
);
