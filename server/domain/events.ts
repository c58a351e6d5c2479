import type { PaymentStatus } from "./payment-status";
import type { RefundStatus } from "./refunds";

/**
 * Every event type the service emits: spec §6, `checkout_session.completed` when a hosted
 * checkout's payment succeeds, and `webhook_endpoint.test`, the ping a merchant sends to one
 * endpoint from the dashboard. There is no event for `unknown`.
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
  "webhook_endpoint.test",
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

/** How far a window's replay has come: the events walked, and the deliveries queued for them (or, on a dry run, counted). */
export type ReplayProgress = { events: number; deliveries: number };

/**
 * A test ping goes to the one endpoint it was sent to, never through the fan-out: no endpoint
 * subscribes to it, and `*` does not include it.
 */
export const TEST_EVENT_TYPE = "webhook_endpoint.test" satisfies EventType;

/** The types an endpoint can subscribe to: every real one. */
export const SUBSCRIBABLE_EVENT_TYPES = EVENT_TYPES.filter((t): t is Exclude<EventType, typeof TEST_EVENT_TYPE> => t !== TEST_EVENT_TYPE);

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
