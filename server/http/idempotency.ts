import { createHash } from "node:crypto";
import { invalidParam } from "@/server/domain/errors";

/** What an Idempotency-Key may be: 1–255 printable ASCII characters, no spaces (also in the OpenAPI document). */
export const IDEMPOTENCY_KEY_SHAPE = /^[\x21-\x7e]{1,255}$/;

/**
 * The request's Idempotency-Key, or null when it sent none. A header sent empty (`-H
 * "Idempotency-Key: $KEY"` with KEY unset) is none, told `idempotency_key_required` where one is
 * needed rather than that it is not 1–255 characters.
 */
export function validateIdempotencyKey(raw: string | null): string | null {
  if (raw === null || raw === "") return null;
  if (!IDEMPOTENCY_KEY_SHAPE.test(raw)) {
    throw invalidParam("Idempotency-Key", "Idempotency-Key must be 1–255 printable ASCII characters without spaces.");
  }
  return raw;
}

/** Deeper than any body an operation accepts (their deepest is 3 levels); a hostile body may nest thousands. */
const MAX_FINGERPRINT_DEPTH = 32;

/**
 * Same key + same method, path and JSON body (key order and whitespace aside) = same request.
 * Null for a body nested deeper than MAX_FINGERPRINT_DEPTH: no operation accepts one, so none
 * was ever recorded.
 */
export function requestFingerprint(method: string, path: string, body: unknown): string | null {
  const canonical = canonicalJson(body, 0);
  return canonical === null ? null : createHash("sha256").update(`${method} ${path}\n${canonical}`).digest("hex");
}

function canonicalJson(value: unknown, depth: number): string | null {
  if (value === null || typeof value !== "object") return JSON.stringify(value ?? null);
  if (depth === MAX_FINGERPRINT_DEPTH) return null;
  const parts: string[] = [];
  const entries = Array.isArray(value)
    ? value.map((v) => ["", v] as const)
    : Object.entries(value as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  for (const [k, v] of entries) {
    const inner = canonicalJson(v, depth + 1);
    if (inner === null) return null;
    parts.push(Array.isArray(value) ? inner : `${JSON.stringify(k)}:${inner}`);
  }
  return Array.isArray(value) ? `[${parts.join(",")}]` : `{${parts.join(",")}}`;
}
