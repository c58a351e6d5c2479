/**
 * When a pending refund is next submitted or asked about (the schedule is data, not code).
 *
 * A new refund's row is written before the request submits it; the due-work verb leaves it to
 * that request for SUBMIT_LEASE_S (longer than any provider timeout), and resubmits it after that
 * only if the request died. An unreachable provider, or one still working on the refund, is asked
 * again after each delay in turn, then every hour for as long as it takes: a pending refund may
 * still move money, so it is never given up on.
 */
export const REFUND_SUBMIT_LEASE_S = 30;
export const REFUND_CHECK_DELAYS_S = [3, 10, 30, 60, 120, 300, 600, 1800, 3600] as const;

export function refundSubmitLeaseEnds(now: Date): Date {
  return new Date(now.getTime() + REFUND_SUBMIT_LEASE_S * 1000);
}

/** When to ask (or submit) again after `attempts` calls that left the refund pending. */
export function nextRefundCheckAt(attempts: number, now: Date): Date {
  const delay = REFUND_CHECK_DELAYS_S[Math.min(Math.max(0, attempts), REFUND_CHECK_DELAYS_S.length - 1)]!;
  return new Date(now.getTime() + delay * 1000);
}
