/** A checkout session takes attempts while `open`; one succeeded payment makes it `complete`. */
export const CHECKOUT_SESSION_STATUSES = ["open", "complete", "expired"] as const;
export type CheckoutSessionStatus = (typeof CHECKOUT_SESSION_STATUSES)[number];
