import { describe, expect, it } from "vitest";
import { alternateSchedule, dueOffsetMs, windowStarts } from "./timers";

describe("the timers' alternate schedule", () => {
  const s = alternateSchedule(10_000, 10_000 / 60, 4_000, 2_000);

  it("keeps the rate of 10,000 over 60 s inside each window, and every expiry", () => {
    expect(s.perSlot).toBe(667);
    expect(s.slots).toBe(15);
    expect(s.slots * s.perSlot).toBeGreaterThanOrEqual(10_000);
    expect(s.periodMs).toBe(12_000);
  });

  it("puts every expiry inside a window with expiries, none in the windows without or their settling time", () => {
    const windows = windowStarts(s);
    const perWindow = windows.map(() => 0);
    for (let i = 0; i < s.count; i++) {
      const at = dueOffsetMs(s, i);
      const k = windows.findIndex((w) => at >= w.on && at < w.on + s.slotMs);
      expect(k, `expiry ${i} at ${at} ms`).toBeGreaterThanOrEqual(0);
      perWindow[k]!++;
      for (const w of windows) expect(at >= w.off - s.settleMs && at < w.off + s.slotMs + s.settleMs).toBe(false);
    }
    expect(perWindow.slice(0, -1).every((n) => n === s.perSlot)).toBe(true);
    expect(perWindow.reduce((a, b) => a + b, 0)).toBe(10_000);
  });

  it("spreads each window's expiries evenly and in order", () => {
    const gaps = Array.from({ length: s.perSlot - 1 }, (_, i) => dueOffsetMs(s, i + 1) - dueOffsetMs(s, i));
    expect(Math.min(...gaps)).toBeGreaterThanOrEqual(5);
    expect(Math.max(...gaps)).toBeLessThanOrEqual(7);
    expect(dueOffsetMs(s, s.perSlot)).toBe(s.periodMs);
  });
});
