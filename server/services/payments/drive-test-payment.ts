import { eq } from "drizzle-orm";
import { payments, type Payment } from "@/db/schema";
import { resourceMissing, ServiceError } from "@/server/domain/errors";
import { TEST_PAYMENT_ACTIONS, type TestPaymentAction } from "@/server/domain/payment-status";
import { UNRESOLVED_AFTER_MS } from "@/server/domain/reconcile-schedule";
import type { ServiceContext } from "@/server/context";
import { applyProviderOutcome } from "./apply-provider-outcome";
import { getPayment } from "./get-payment";
import { markUnresolved } from "./reconcile-payment";
import { transitionPayment } from "./transition-payment";

const isTestAction = (a: string): a is TestPaymentAction => (TEST_PAYMENT_ACTIONS as readonly string[]).includes(a);

/**
 * Test helpers: move a test-mode payment through the verbs the provider and the timers use, so
 * an integration can rehearse every outcome without waiting. Live payments do not exist here.
 */
export async function driveTestPayment(ctx: ServiceContext, paymentId: string, action: string): Promise<Payment> {
  if (!isTestAction(action)) throw resourceMissing("test helper", action, "action");
  if (ctx.livemode) throw resourceMissing("payment", paymentId);
  const payment = await getPayment(ctx, paymentId);
  switch (action) {
    case "succeed":
      return (await applyProviderOutcome(ctx, payment, { kind: "succeeded" }))!.payment;
    case "fail":
      return (await applyProviderOutcome(ctx, payment, { kind: "failed", failureCode: "declined", message: "The wallet provider declined the payment (test helper)." }))!
        .payment;
    case "expire":
      return (await transitionPayment(ctx, { paymentId, to: "expired" })).payment;
    case "unknown":
      return (await transitionPayment(ctx, { paymentId, to: "unknown" })).payment;
    case "age": {
      if (payment.status !== "unknown") {
        throw new ServiceError("parameter_invalid", `Only an unknown payment can be aged; this one is ${payment.status}.`, "id");
      }
      // As if 24 h had passed in unknown: move the clock of this payment, then run the real timer.
      await ctx.db
        .update(payments)
        .set({ unknownSince: new Date(ctx.clock.now().getTime() - UNRESOLVED_AFTER_MS) })
        .where(eq(payments.id, paymentId));
      return (await markUnresolved(ctx, paymentId))!;
    }
  }
}
