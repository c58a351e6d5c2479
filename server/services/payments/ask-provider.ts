import type { Payment } from "@/db/schema";
import type { ProviderOutcome, ProviderRegistry } from "@/server/providers/port";
import { callProvider, STATUS_QUERY_TIMEOUT_MS } from "../providers/call-provider";

/** A provider status query that never throws for the provider's own failures: those are `unknown`. */
export async function askProvider(providers: ProviderRegistry, payment: Payment): Promise<ProviderOutcome> {
  const outcome = await callProvider(
    providers.byName(payment.provider),
    (provider, signal) => provider.queryStatus({ idempotencyKey: payment.id, providerReference: payment.providerReference, msisdn: payment.customerMsisdn }, signal),
    { timeoutMs: STATUS_QUERY_TIMEOUT_MS, what: "status query", about: { payment: payment.id } },
  );
  return outcome === "unavailable" ? { kind: "unknown" } : outcome;
}
