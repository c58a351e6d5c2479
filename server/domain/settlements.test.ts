import { describe, expect, it } from "vitest";
import { dailyCutoff } from "./settlements";

describe("dailyCutoff", () => {
  it("is the most recent midnight in Harare (22:00 UTC)", () => {
    expect(dailyCutoff(new Date("2026-11-22T03:00:00Z"))).toEqual(new Date("2026-11-21T22:00:00Z"));
    expect(dailyCutoff(new Date("2026-11-21T21:59:59.999Z"))).toEqual(new Date("2026-11-20T22:00:00Z"));
    expect(dailyCutoff(new Date("2026-11-21T22:00:00Z"))).toEqual(new Date("2026-11-21T22:00:00Z"));
    expect(dailyCutoff(new Date("2026-01-01T00:30:00Z"))).toEqual(new Date("2025-12-31T22:00:00Z"));
  });
});
