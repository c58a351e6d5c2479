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

/**
 * An update's metadata, as Stripe merges it: the keys sent are set, a key sent as "" is removed,
 * and keys not sent stay. Null when the result passes the limit.
 */
export function mergeMetadata(current: Record<string, string>, update: Record<string, string>): Record<string, string> | null {
  const merged = { ...current, ...update };
  for (const [k, v] of Object.entries(update)) if (v === "") delete merged[k];
  return Object.keys(merged).length > METADATA_MAX_KEYS ? null : merged;
}

/** The same keys with the same values, in any order. */
export function sameMetadata(a: Record<string, string>, b: Record<string, string>): boolean {
  return Object.keys(a).length === Object.keys(b).length && Object.entries(a).every(([k, v]) => Object.hasOwn(b, k) && b[k] === v);
}
