/** Services read time only through a clock, so every timer is testable without waiting. */
export type Clock = { now(): Date };

export const systemClock: Clock = { now: () => new Date() };

/** A clock that moves only when told to. */
export function manualClock(start: Date | string = "2026-01-01T00:00:00Z"): Clock & { advance(ms: number): void; set(at: Date): void } {
  let t = new Date(start).getTime();
  return {
    now: () => new Date(t),
    advance: (ms) => {
      t += ms;
    },
    set: (at) => {
      t = at.getTime();
    },
  };
}
