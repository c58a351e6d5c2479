import { expirePayment } from "@/server/services/payments/expire-payment";
import { inngest, paymentCreated } from "./client";
import { jobDeps } from "./deps";

/** payment/created → sleep until expires_at → the expiry verb (which asks the provider first). */
export const expirePaymentFn = inngest.createFunction(
  { id: "expire-payment", triggers: [paymentCreated], retries: 10 },
  async ({ event, step }) => {
    await step.sleepUntil("wait-for-expiry", event.data.expires_at);
    return step.run("expire", async () => {
      const payment = await expirePayment(await jobDeps(), event.data.payment_id);
      return { status: payment?.status ?? "missing" };
    });
  },
);
