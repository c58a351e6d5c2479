import { env } from "@/server/env";

/**
 * The address of whoever sent a request, as the proxies in front of Mari saw it, or null when it
 * cannot be known. Each proxy appends the address it was reached from to X-Forwarded-For, so with
 * `trustedHops` proxies of ours the client is the entry that many places from the right; entries
 * further left were written by the client and prove nothing. With no trusted proxy the header is
 * ignored altogether.
 */
export function clientAddress(forwardedFor: string | null | undefined, trustedHops: number): string | null {
  if (trustedHops <= 0 || !forwardedFor) return null;
  const hops = forwardedFor
    .split(",")
    .map((h) => h.trim())
    .filter((h) => h !== "");
  const entry = hops[hops.length - trustedHops];
  return entry && entry.length <= 64 ? entry : null;
}

/** The client's address from a request's X-Forwarded-For, behind the TRUSTED_PROXY_HOPS proxies this deployment has. */
export function trustedClientAddress(forwardedFor: unknown): string | null {
  return typeof forwardedFor === "string" ? clientAddress(forwardedFor, env().TRUSTED_PROXY_HOPS) : null;
}
