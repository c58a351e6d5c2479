/** Refund states: a refund waits on the provider, then it either moved the money back or did not. */
export const REFUND_STATUSES = ["pending", "succeeded", "failed"] as const;
export type RefundStatus = (typeof REFUND_STATUSES)[number];

/** Why the merchant refunds (shown to staff; no effect on the money). */
export const REFUND_REASONS = ["requested_by_customer", "duplicate", "fraudulent"] as const;
export type RefundReason = (typeof REFUND_REASONS)[number];

/**
 * Why a refund failed. `refund_rejected`: the provider refused the request when we submitted it;
 * `refund_declined`: it took the request and then could not credit the customer's wallet.
 */
export const REFUND_FAILURE_CODES = ["refund_rejected", "refund_declined"] as const;
export type RefundFailureCode = (typeof REFUND_FAILURE_CODES)[number];

/**
 * Which refunds hold part of their payment's refundable amount: a pending one may still move the
 * money, so it counts until it fails.
 */
export const HOLDS_REFUNDABLE_AMOUNT = {
  pending: true,
  succeeded: true,
  failed: false,
} as const satisfies Record<RefundStatus, boolean>;

export const HOLDING_STATUSES = REFUND_STATUSES.filter((s) => HOLDS_REFUNDABLE_AMOUNT[s]);

/**
 * What is left to refund on a payment. Fees are not refunded: the refundable total is the
 * payment's `amount`, whoever bore the fee.
 */
export function refundableRemainder(paymentAmount: number, held: number): number {
  return Math.max(0, paymentAmount - held);
}
