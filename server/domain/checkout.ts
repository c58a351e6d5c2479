import { TERMINAL, type PaymentStatus } from "./payment-status";

/** A checkout session takes attempts while `open`; one succeeded payment makes it `complete`. */
export const CHECKOUT_SESSION_STATUSES = ["open", "complete", "expired"] as const;
export type CheckoutSessionStatus = (typeof CHECKOUT_SESSION_STATUSES)[number];

/** `expires_in` on creation, in seconds. */
export const SESSION_EXPIRES_IN = { default: 3600, min: 60, max: 86_400 } as const;

/**
 * The status a session reads as. Only `open` and `complete` are stored: an open session past its
 * `expires_at` is `expired` without anything having to write it, so no timer can be late.
 */
export function checkoutSessionStatus(session: { status: CheckoutSessionStatus; expiresAt: Date }, now: Date): CheckoutSessionStatus {
  if (session.status === "open" && session.expiresAt.getTime() <= now.getTime()) return "expired";
  return session.status;
}

/** A payment whose outcome is still to come: while one exists, a session takes no other attempt. */
export const inFlight = (status: PaymentStatus): boolean => !TERMINAL[status];

/** What a checkout's page heads with: "Order INV-7", or the reference alone when it says so itself ("order-7", "Order #7"). */
export const orderTitle = (reference: string) => (/^order\b/i.test(reference) ? reference : `Order ${reference}`);

/** The attempt's reference: the session's, numbered, so the merchant can trace each attempt to its order. */
export const attemptReference = (sessionReference: string, attempt: number) => `${sessionReference}#${attempt}`;

/** The session's reference an attempt's was made from (`order-7#2` → `order-7`): the search that finds all of its attempts. */
export const sessionReferenceOf = (attemptRef: string) => attemptRef.replace(/#\d+$/, "");
