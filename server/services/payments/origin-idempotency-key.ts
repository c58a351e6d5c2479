import { invalidParam } from "@/server/domain/errors";

/**
 * A page's attempt key, kept apart from the merchant's own Idempotency-Keys (which share the
 * payments' unique index): scoped to the link or session it was sent for.
 */
export function originIdempotencyKey(originId: string, key: string): string {
  if (key.length < 1 || key.length > 255) throw invalidParam("idempotency_key", "idempotency_key must be 1–255 characters.");
  return `${originId}:${key}`;
}
