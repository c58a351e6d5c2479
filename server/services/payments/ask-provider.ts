import type { Payment } from "@/db/schema";
import { log } from "@/server/log";
import { ProviderUnavailableError, type ProviderOutcome, type ProviderRegistry } from "@/server/providers/port";

const STATUS_QUERY_TIMEOUT_MS = 5_000;

/** A provider status query that never throws for the provider's own failures: those are `unknown`. */
export async function askProvider(providers: ProviderRegistry, payment: Payment): Promise<ProviderOutcome> {
  const provider = providers.byName(payment.provider);
  if (!provider) {
    log.error("payment names no configured provider", { payment: payment.id, provider: payment.provider });
    return { kind: "unknown" };
  }
  try {
    return await provider.queryStatus(
      { idempotencyKey: payment.id, providerReference: payment.providerReference, msisdn: payment.customerMsisdn },
      AbortSignal.timeout(STATUS_QUERY_TIMEOUT_MS),
    );
  } catch (e) {
    if (!(e instanceof ProviderUnavailableError)) throw e;
    log.warn("provider status query failed", { payment: payment.id, error: e.message });
    return { kind: "unknown" };
  }
}
