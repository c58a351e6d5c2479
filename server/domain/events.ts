import type { PaymentStatus } from "./payment-status";
import type { RefundStatus } from "./refunds";

/**
 * Every event type the service emits: spec §6, and `checkout_session.completed` when a hosted
 * checkout's payment succeeds. There is no event for `unknown`.
 */
export const EVENT_TYPES = [
  "payment.succeeded",
  "payment.failed",
  "payment.expired",
  "payment.unresolved",
  "refund.succeeded",
  "refund.failed",
  "settlement.paid",
  "checkout_session.completed",
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

/** The event a payment's arrival in a state fires, if any. */
export const PAYMENT_EVENT = {
  awaiting_customer: null,
  unknown: null,
  succeeded: "payment.succeeded",
  failed: "payment.failed",
  expired: "payment.expired",
  unresolved: "payment.unresolved",
} as const satisfies Record<PaymentStatus, EventType | null>;

/** The event a refund's arrival in a state fires, if any (none while it waits on the provider). */
export const REFUND_EVENT = {
  pending: null,
  succeeded: "refund.succeeded",
  failed: "refund.failed",
} as const satisfies Record<RefundStatus, EventType | null>;
