/**
 * Harare time: the clock of the business day (settlements cut at its midnight), of receipts, and
 * of every time the dashboard shows and reads. Zimbabwe keeps UTC+2 all year (no daylight saving).
 */
export const HARARE_OFFSET_MS = 2 * 3600_000;
export const DAY_MS = 24 * 3600_000;

/** The day number on the Harare calendar (days since 1970-01-01 there); `mari_harare_day()` in SQL. */
export const harareDay = (at: Date): number => Math.floor((at.getTime() + HARARE_OFFSET_MS) / DAY_MS);
/** The first instant of a Harare day number. */
export const harareDayStart = (day: number): Date => new Date(day * DAY_MS - HARARE_OFFSET_MS);

const WALL_TIME = /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d+)?)?)?$/;

/**
 * A wall-clock time in Harare, as a date or datetime-local field gives it ("2026-11-26",
 * "2026-11-26T15:48", "2026-11-26T15:48:30"), as an instant; `plusDays` moves it by whole days
 * (the end of an inclusive date range is the next day's midnight). Undefined when it is not one.
 */
export function harareWallTimeToIso(value: string | null | undefined, plusDays = 0): string | undefined {
  const m = value ? WALL_TIME.exec(value) : null;
  if (!m) return undefined;
  const [y, mo, d, h, mi, s] = m.slice(1, 7).map((part) => Number(part ?? 0)) as [number, number, number, number, number, number];
  // A day the month has: 2026-02-30 is no day, not 2 March.
  const monthDays = new Date(Date.UTC(y, mo, 0)).getUTCDate();
  if (mo < 1 || mo > 12 || d < 1 || d > monthDays || h > 23 || mi > 59 || s > 59) return undefined;
  return new Date(Date.UTC(y, mo - 1, d + plusDays, h, mi, s) - HARARE_OFFSET_MS).toISOString();
}
