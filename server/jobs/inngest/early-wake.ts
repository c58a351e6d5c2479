/**
 * Waits a timer function makes after its first, each because this server's clock did not yet
 * count its work as due; work still not due after them is left to sweep-overdue.
 */
export const EARLY_WAKE_ROUNDS = 3;

/**
 * How long to wait again when the scheduler woke a timer before `dueAt` by this server's clock
 * (the two clocks differ, or a sleep resumed early): the difference and a second, or null when
 * it is due. The scheduler's own clock is ahead, so the wait is measured, not a time to sleep until.
 */
export function waitAgainMs(dueAt: Date, now: Date): number | null {
  const ahead = dueAt.getTime() - now.getTime();
  return ahead > 0 ? ahead + 1_000 : null;
}
