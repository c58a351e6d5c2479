import { ServiceError } from "@/server/domain/errors";
import type { ServiceContext } from "@/server/context";
import type { Payment } from "@/db/schema";
import { getPayment } from "./get-payment";
import { transitionPayment } from "./transition-payment";

/**
 * Staff close an unresolved payment after investigating it with the provider. The reason, and who
 * gave it, are kept on the payment; the transition and its event are the same as a provider's
 * answer would make.
 */
export async function resolveUnresolvedPayment(
  ctx: ServiceContext,
  input: { paymentId: string; outcome: "succeeded" | "failed"; reason: string },
): Promise<Payment> {
  const reason = input.reason.trim();
  if (reason.length < 5) throw new ServiceError("parameter_invalid", "Say why, in a few words, so the decision can be audited.", "reason");
  const payment = await getPayment(ctx, input.paymentId);
  if (payment.status !== "unresolved") {
    throw new ServiceError("parameter_invalid", `Only an unresolved payment can be resolved by hand; this one is ${payment.status}.`, "id");
  }
  const result = await transitionPayment(ctx, {
    paymentId: payment.id,
    to: input.outcome,
    resolutionReason: reason,
    ...(ctx.actor.type === "staff" ? { resolvedBy: ctx.actor.userId } : {}),
    ...(input.outcome === "failed" ? { failure: { code: "resolved_as_failed" as const, message: reason } } : {}),
  });
  if (!result.changed) {
    throw new ServiceError("parameter_invalid", `The payment changed while you decided: it is now ${result.payment.status}.`, "id");
  }
  return result.payment;
}
