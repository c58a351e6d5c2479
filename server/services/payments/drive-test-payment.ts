import type { Payment } from "@/db/schema";
import { resourceMissing, ServiceError, testModeOnly } from "@/server/domain/errors";
import { canTransition, TEST_PAYMENT_ACTIONS, TRANSITIONS, type PaymentStatus, type TestPaymentAction } from "@/server/domain/payment-status";
import type { ServiceContext } from "@/server/context";
import { applyProviderOutcome } from "./apply-provider-outcome";
import { getPayment } from "./get-payment";
import { transitionPayment } from "./transition-payment";
import { allowedValues } from "@/server/domain/wording";

const isTestAction = (a: string): a is TestPaymentAction => (TEST_PAYMENT_ACTIONS as readonly string[]).includes(a);

/**
 * Test helpers: move a test-mode payment through the verbs the provider and the timers use, so
 * an integration can rehearse every outcome without waiting. Live payments do not exist here.
 */
/** The state each moving action leads to (`age` leads from unknown to unresolved, as the 24 h timer does). */
const TARGET = { succeed: "succeeded", fail: "failed", expire: "expired", unknown: "unknown", age: "unresolved" } as const satisfies Record<
  TestPaymentAction,
  PaymentStatus
>;

export async function driveTestPayment(ctx: ServiceContext, paymentId: string, action: string): Promise<Payment> {
  // A live key: the same answer whatever the id, so it tells nothing of live payments (server/security/tenant-matrix).
  if (ctx.livemode) throw testModeOnly();
  if (!isTestAction(action)) throw resourceMissing("test helper", action, "action");
  const payment = await getPayment(ctx, paymentId);
  const to = TARGET[action];
  // Asked again for where it already is: the same answer, as a retry expects.
  if (payment.status === to) return payment;
  // A move the provider or the timers could never make is refused, not answered with the payment unchanged.
  const refused = (status: PaymentStatus) =>
    new ServiceError("parameter_invalid", `This payment's status is ${status}: '${action}' moves only a payment whose status is ${allowedValues(TRANSITIONS[to])}.`, "action");
  if (!canTransition(payment.status, to)) throw refused(payment.status);
  const moved = await move(ctx, payment, action);
  // Another move won the compare-and-set in between (two helpers at once, or the sandbox's own answer).
  if (moved.status !== to) throw refused(moved.status);
  return moved;
}

async function move(ctx: ServiceContext, payment: Payment, action: TestPaymentAction): Promise<Payment> {
  const paymentId = payment.id;
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
    case "age":
      // As if 24 h had passed in unknown: the move the timer makes then, with the payment's own
      // times left as they were (its unknown_at stays after its created_at).
      return (await transitionPayment(ctx, { paymentId, to: "unresolved" })).payment;
  }
}
