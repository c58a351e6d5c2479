/** How long an Idempotency-Key answers for its first request (DESIGN.md: 24 h). */
export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;

/**
 * The key a dashboard form's action is stored under, on the same records as /v1's
 * Idempotency-Key (and a refund's own key). It holds spaces, which no Idempotency-Key may
 * (`IDEMPOTENCY_KEY_SHAPE`), so no API request can ever meet a dashboard action's record.
 */
export function dashboardIdempotencyKey(action: string, formKey: string): string {
  return `dashboard ${action} ${formKey}`;
}

/**
 * The key a customer's attempt on a hosted page (a payment link's or a checkout session's) is kept
 * under on its payment, whose unique index the merchant's own Idempotency-Keys share: the origin's
 * id, a space, and the attempt's key. No Idempotency-Key holds a space, so no API request can meet
 * an attempt's payment, whatever key either chose (migration 0024 moved older attempts' keys here).
 */
export function attemptIdempotencyKey(originId: string, attemptKey: string): string {
  return `${originId} ${attemptKey}`;
}
