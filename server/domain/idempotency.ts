/** How long an Idempotency-Key answers for its first request (DESIGN.md: 24 h). */
export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;
