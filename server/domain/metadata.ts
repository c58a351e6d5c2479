/** DESIGN.md's limits on `metadata`: at most 50 keys, keys of 1–40 characters, values of at most 500. */
export const METADATA_MAX_KEYS = 50;

/**
 * A refund's metadata: its payment's (so a refund's webhooks, like the payment's, carry the
 * merchant's own ids), with the refund's own keys on top. Null when together they pass the limit.
 */
export function refundMetadata(payment: Record<string, string>, own: Record<string, string> | undefined): Record<string, string> | null {
  const merged = { ...payment, ...own };
  return Object.keys(merged).length > METADATA_MAX_KEYS ? null : merged;
}
