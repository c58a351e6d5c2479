import { describe, expect, it } from "vitest";
import { formatHarareTime } from "./hosted";
import { harareWallTimeToIso } from "./harare-time";
import { dailyCutoff } from "./settlements";

describe("Harare wall-clock times", () => {
  it("reads a datetime-local value as Harare time, whatever this machine's zone", () => {
    expect(harareWallTimeToIso("2026-11-26T15:48")).toBe("2026-11-26T13:48:00.000Z");
    expect(harareWallTimeToIso("2026-11-26T15:48:30")).toBe("2026-11-26T13:48:30.000Z");
    expect(harareWallTimeToIso("2026-01-01T01:00")).toBe("2025-12-31T23:00:00.000Z");
  });

  it("reads a date as its Harare midnight, and the day after for the end of a range", () => {
    expect(harareWallTimeToIso("2026-11-26")).toBe("2026-11-25T22:00:00.000Z");
    expect(harareWallTimeToIso("2026-11-26", 1)).toBe("2026-11-26T22:00:00.000Z");
    expect(harareWallTimeToIso("2026-12-31", 1)).toBe("2026-12-31T22:00:00.000Z");
    expect(harareWallTimeToIso("2028-02-29")).toBe("2028-02-28T22:00:00.000Z");
  });

  it("agrees with the receipts' clock and the settlement cutoff", () => {
    const at = harareWallTimeToIso("2026-11-22T07:30")!;
    expect(formatHarareTime(at)).toBe("22 Nov 2026, 07:30 CAT");
    expect(dailyCutoff(new Date(at)).toISOString()).toBe(harareWallTimeToIso("2026-11-22"));
  });

  it("refuses what is not a wall-clock time", () => {
    for (const v of ["", null, undefined, "yesterday", "2026-13-01", "2026-11-26T24:00", "2026-11-26 15:48", "1764165000", "2026-02-30", "2027-02-29", "2026-04-31", "9999-99-99"]) {
      expect(harareWallTimeToIso(v)).toBeUndefined();
    }
  });
});
