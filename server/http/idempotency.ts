import { createHash } from "node:crypto";
import { invalidParam } from "@/server/domain/errors";

/** What an Idempotency-Key may be: 1–255 printable ASCII characters, no spaces (also in the OpenAPI document). */
export const IDEMPOTENCY_KEY_SHAPE = /^[\x21-\x7e]{1,255}$/;

export function validateIdempotencyKey(raw: string | null): string | null {
  if (raw === null) return null;
  if (!IDEMPOTENCY_KEY_SHAPE.test(raw)) {
    throw invalidParam("Idempotency-Key", "Idempotency-Key must be 1–255 printable ASCII characters without spaces.");
  }
  return raw;
}

/** Same key + same method, path and JSON body (key order and whitespace aside) = same request. */
export function requestFingerprint(method: string, path: string, body: unknown): string {
  return createHash("sha256").update(`${method} ${path}\n${canonicalJson(body)}`).digest("hex");
}

function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (value && typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(",")}}`;
  }
  return JSON.stringify(value ?? null);
}
