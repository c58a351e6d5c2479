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
