import { log } from "@/server/log";
import { ProviderUnavailableError, type WalletProvider } from "@/server/providers/port";

/** How long a status query may take before the provider counts as unable to answer. */
export const STATUS_QUERY_TIMEOUT_MS = 5_000;

/**
 * One call to a wallet provider, with a deadline. A provider that is not configured, cannot be
 * reached or does not answer in time gives `unavailable` (logged): never a failure, for the caller
 * to try again later. Any other error is ours and propagates.
 */
export async function callProvider<T>(
  provider: WalletProvider | undefined,
  call: (provider: WalletProvider, signal: AbortSignal) => Promise<T>,
  opts: { timeoutMs: number; what: string; about: Record<string, unknown> },
): Promise<T | "unavailable"> {
  if (!provider) {
    log.error(`provider ${opts.what}: no such provider is configured`, opts.about);
    return "unavailable";
  }
  // A deadline that ends with the call. AbortSignal.timeout's timer would stay until the deadline
  // (seconds after a fast answer), holding the request's async context all that time.
  const deadline = new AbortController();
  const timer = setTimeout(() => deadline.abort(new DOMException("provider call timed out", "TimeoutError")), opts.timeoutMs);
  try {
    return await call(provider, deadline.signal);
  } catch (e) {
    if (!(e instanceof ProviderUnavailableError)) throw e;
    log.warn(`provider ${opts.what} unavailable`, { ...opts.about, provider: provider.name, error: e.message });
    return "unavailable";
  } finally {
    clearTimeout(timer);
  }
}
