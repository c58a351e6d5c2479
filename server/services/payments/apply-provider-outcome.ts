import type { Payment } from "@/db/schema";
import type { BaseContext } from "@/server/context";
import type { ProviderOutcome } from "@/server/providers/port";
import { transitionPayment, type TransitionResult } from "./transition-payment";

/**
 * What a provider's answer means for a payment, whoever asked (callback, expiry, reconciliation).
 * Only definitive answers move it here; what "still pending" means depends on who asked, so the
 * caller decides that (expiry expires, reconciliation waits).
 */
export async function applyProviderOutcome(
  ctx: BaseContext,
  payment: Payment,
  outcome: ProviderOutcome,
  providerReference?: string | null,
): Promise<TransitionResult | null> {
  switch (outcome.kind) {
    case "succeeded":
      return transitionPayment(ctx, { paymentId: payment.id, to: "succeeded", providerReference });
    case "failed":
      return transitionPayment(ctx, {
        paymentId: payment.id,
        to: "failed",
        failure: { code: outcome.failureCode, message: outcome.message },
        providerReference,
      });
    case "pending":
    case "unknown":
      return null;
  }
}
