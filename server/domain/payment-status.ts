/** Payment states (spec §3, DESIGN.md). `unknown` and `unresolved` are real states, not failures. */
export const PAYMENT_STATUSES = [
  "awaiting_customer",
  "unknown",
  "succeeded",
  "failed",
  "expired",
  "unresolved",
] as const;
export type PaymentStatus = (typeof PAYMENT_STATUSES)[number];

/** What the test helper can do to a test payment (POST /v1/test_helpers/payments/{id}/{action}). */
export const TEST_PAYMENT_ACTIONS = ["succeed", "fail", "expire", "unknown", "age"] as const;
export type TestPaymentAction = (typeof TEST_PAYMENT_ACTIONS)[number];

/**
 * From which states each state may be entered. Terminal states appear in no `from` list but one:
 * an expired payment still becomes `succeeded` when the provider confirms that the money moved
 * after all (the customer entered the PIN as the prompt ran out). Expiry asks the provider first,
 * so this is rare, but the customer has paid: keeping `expired` would lose their money silently and
 * reopen a single-use link or a checkout session for a second payment.
 */
export const TRANSITIONS = {
  awaiting_customer: [],
  unknown: ["awaiting_customer"],
  succeeded: ["awaiting_customer", "unknown", "unresolved", "expired"],
  failed: ["awaiting_customer", "unknown", "unresolved"],
  expired: ["awaiting_customer", "unknown"],
  unresolved: ["unknown"],
} as const satisfies Record<PaymentStatus, readonly PaymentStatus[]>;

/** Final for the customer and for us: nothing moves it but a provider's late confirmation of an expired payment (above). */
export const TERMINAL = {
  awaiting_customer: false,
  unknown: false,
  succeeded: true,
  failed: true,
  expired: true,
  unresolved: false,
} as const satisfies Record<PaymentStatus, boolean>;

export function canTransition(from: PaymentStatus, to: PaymentStatus): boolean {
  return (TRANSITIONS[to] as readonly PaymentStatus[]).includes(from);
}

/** Why a payment failed. Only a definitive decline from the provider produces one. */
export const FAILURE_CODES = [
  "insufficient_funds",
  "declined",
  "customer_cancelled",
  "wallet_not_found",
  "push_rejected",
  "limit_exceeded",
  // Staff resolved an unresolved payment as failed after investigating with the provider.
  "resolved_as_failed",
] as const;
export type FailureCode = (typeof FAILURE_CODES)[number];
