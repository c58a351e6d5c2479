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
  opts: { locked?: boolean } = {},
): Promise<TransitionResult | null> {
  // `payment` was read with lockPayment() in the transaction that is ctx.db: no need to lock it again.
  const locked = opts.locked ? payment : undefined;
  switch (outcome.kind) {
    case "succeeded":
      return transitionPayment(ctx, { paymentId: payment.id, to: "succeeded", providerReference, locked });
    case "failed":
      return transitionPayment(ctx, {
        paymentId: payment.id,
        to: "failed",
        failure: { code: outcome.failureCode, message: outcome.message },
        providerReference,
        locked,
      });
    case "pending":
    case "unknown":
      return null;
  }
}
