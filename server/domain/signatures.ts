import { createHmac, timingSafeEqual } from "node:crypto";

/** Spec §6: timestamps older or newer than this are refused. */
export const SIGNATURE_TOLERANCE_S = 300;

/** Lowercase hex HMAC-SHA256 of `<t>.<raw_body>` keyed with the secret string as given. */
export function signPayload(secret: string, timestamp: number, rawBody: string): string {
  return createHmac("sha256", secret).update(`${timestamp}.${rawBody}`).digest("hex");
}

/** `t=<unix>,v1=<hex>[,v1=<hex>…]`: one v1 per secret (two while a secret is being rolled). */
export function signatureHeader(secrets: readonly string[], timestamp: number, rawBody: string): string {
  return [`t=${timestamp}`, ...secrets.map((s) => `v1=${signPayload(s, timestamp, rawBody)}`)].join(",");
}

/**
 * For merchants too: this module needs nothing but node:crypto, so a receiver can use it as is
 * (see the README's Next.js route handler). Pass the raw body, before any JSON parsing.
 *
 * Verifies a `t=…,v1=…` header the way the spec tells receivers to: parse, refuse a timestamp
 * more than 300 s from now, recompute, compare in constant time. Any v1 matching any secret passes;
 * an empty secret matches nothing.
 */
export function verifySignatureHeader(
  header: string | null,
  rawBody: string,
  secrets: readonly string[],
  now: Date,
  toleranceSeconds = SIGNATURE_TOLERANCE_S,
): boolean {
  if (!header) return false;
  let timestamp: number | undefined;
  const candidates: string[] = [];
  for (const part of header.split(",")) {
    const [k, v] = part.trim().split("=", 2);
    if (k === "t" && v && /^\d{1,12}$/.test(v)) timestamp = Number(v);
    else if (k === "v1" && v && /^[0-9a-f]{64}$/.test(v)) candidates.push(v);
  }
  if (timestamp === undefined || candidates.length === 0) return false;
  // Whole seconds, as `t` is: 300 s means 300 s however many milliseconds into the second now is.
  if (Math.abs(Math.floor(now.getTime() / 1000) - timestamp) > toleranceSeconds) return false;
  // An empty secret (a variable that was never set, read as "") would let anyone sign.
  return secrets.some((secret) => {
    if (!secret) return false;
    const expected = Buffer.from(signPayload(secret, timestamp!, rawBody), "hex");
    return candidates.some((c) => timingSafeEqual(expected, Buffer.from(c, "hex")));
  });
}
