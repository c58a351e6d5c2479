/**
 * How often a hosted page looks at an attempt under way: by its status route with JavaScript
 * (pay-panel.tsx), by reloading itself without (hosted-checkout.tsx).
 */

/** Between two looks: the "every 2–3 s at most". */
export const POLL_MS = 2_500;

/** An unresolved payment waits on people, not seconds: looked at less often. */
export const SLOW_POLL_MS = 10_000;
