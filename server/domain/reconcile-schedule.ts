/**
 * How often an unknown payment's provider is asked again: quickly at first, then backing off,
 * and slowly for ever once unresolved (the schedule is data, not code).
 */
export const UNKNOWN_CHECK_DELAYS_S = [10, 30, 60, 120, 300, 600, 1800, 3600] as const;
export const UNRESOLVED_CHECK_DELAY_S = 6 * 3600;
export const UNRESOLVED_AFTER_MS = 24 * 3600 * 1000;

export function firstCheckAt(status: "unknown" | "unresolved", now: Date): Date {
  const delay = status === "unknown" ? UNKNOWN_CHECK_DELAYS_S[0] : UNRESOLVED_CHECK_DELAY_S;
  return new Date(now.getTime() + delay * 1000);
}

/**
 * When to ask again after `attempts` unanswered checks. An unknown payment is never left past its
 * 24 hours (`unknownSince` + UNRESOLVED_AFTER_MS): the check then is the one that flags it
 * unresolved, on time rather than up to an hour's backoff late.
 */
export function nextCheckAt(status: "unknown" | "unresolved", attempts: number, now: Date, unknownSince?: Date | null): Date {
  const delay =
    status === "unknown" ? UNKNOWN_CHECK_DELAYS_S[Math.min(attempts, UNKNOWN_CHECK_DELAYS_S.length - 1)]! : UNRESOLVED_CHECK_DELAY_S;
  const next = now.getTime() + delay * 1000;
  if (status !== "unknown" || !unknownSince) return new Date(next);
  return new Date(Math.max(now.getTime(), Math.min(next, unknownSince.getTime() + UNRESOLVED_AFTER_MS)));
}
