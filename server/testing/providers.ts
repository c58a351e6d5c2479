import type { ProviderOutcome, ProviderRegistry, WalletProvider } from "@/server/providers/port";
import { sandbox } from "@/server/providers/registry";

/** The sandbox serving every payment, with some of its calls replaced (a crash mid-call, a provider that refuses copies). */
export function sandboxWith(overrides: Partial<Pick<WalletProvider, "push" | "queryStatus" | "refund" | "queryRefund">>): ProviderRegistry {
  const provider: WalletProvider = Object.assign(Object.create(sandbox) as WalletProvider, overrides);
  return { forPayment: () => provider, byName: () => provider };
}

/**
 * The sandbox, with the status answers a test chooses (a late confirmation, an outage): `answer`
 * gives the outcome for a payment id, or undefined for the sandbox's own.
 */
export function sandboxAnswering(answer: (paymentId: string) => ProviderOutcome | Promise<ProviderOutcome> | undefined): ProviderRegistry {
  return sandboxWith({ queryStatus: async (q, signal) => (await answer(q.idempotencyKey)) ?? sandbox.queryStatus(q, signal) });
}
