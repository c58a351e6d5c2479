import { expirePayment } from "@/server/services/payments/expire-payment";
import { inngest, paymentCreated } from "./client";
import { jobDeps } from "./deps";
import { EARLY_WAKE_ROUNDS, waitAgainMs } from "./early-wake";

/**
 * payment/created → sleep until expires_at → the expiry verb (which asks the provider first).
 * Woken before expires_at by this server's clock, the verb leaves the payment waiting, and the
 * function waits the difference rather than leave it to the minute's sweep.
 */
export const expirePaymentFn = inngest.createFunction(
  { id: "expire-payment", triggers: [paymentCreated], retries: 10 },
  async ({ event, step }) => {
    await step.sleepUntil("wait-for-expiry", event.data.expires_at);
    for (let round = 0; ; round++) {
      const expired = await step.run(round === 0 ? "expire" : `expire-${round}`, async () => {
        const deps = await jobDeps();
        const payment = await expirePayment(deps, event.data.payment_id);
        const early = payment?.status === "awaiting_customer" ? waitAgainMs(payment.expiresAt, deps.clock.now()) : null;
        return { status: payment?.status ?? "missing", waitMs: early };
      });
      if (expired.waitMs === null || round === EARLY_WAKE_ROUNDS) return { status: expired.status };
      await step.sleep(`wait-for-expiry-${round + 1}`, expired.waitMs);
    }
  },
);
