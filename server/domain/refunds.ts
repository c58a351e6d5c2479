/** Refund states: a refund waits on the provider, then it either moved the money back or did not. */
export const REFUND_STATUSES = ["pending", "succeeded", "failed"] as const;
export type RefundStatus = (typeof REFUND_STATUSES)[number];

/** Why the merchant refunds (shown to staff; no effect on the money). */
export const REFUND_REASONS = ["requested_by_customer", "duplicate", "fraudulent"] as const;
export type RefundReason = (typeof REFUND_REASONS)[number];
