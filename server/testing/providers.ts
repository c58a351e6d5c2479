import type { ProviderOutcome, ProviderRegistry, WalletProvider } from "@/server/providers/port";
import { sandbox } from "@/server/providers/registry";

/**
 * The sandbox, with the status answers a test chooses (a late confirmation, an outage): `answer`
 * gives the outcome for a payment id, or undefined for the sandbox's own.
 */
export function sandboxAnswering(answer: (paymentId: string) => ProviderOutcome | Promise<ProviderOutcome> | undefined): ProviderRegistry {
  const provider: WalletProvider = Object.assign(Object.create(sandbox) as WalletProvider, {
    queryStatus: async (q: Parameters<WalletProvider["queryStatus"]>[0], signal: AbortSignal) => (await answer(q.idempotencyKey)) ?? sandbox.queryStatus(q, signal),
  });
  return { forPayment: () => provider, byName: () => provider };
}
