import { describe, expect, it } from "vitest";
import { readFilters, writeFilters } from "./filters";

describe("the payments page's URL", () => {
  it("keeps a shared view's filters", () => {
    const f = readFilters(new URLSearchParams("q=order-101&status=succeeded&from=2028-02-29&to=2028-03-01"));
    expect(f).toMatchObject({ q: "order-101", status: "succeeded", from: "2028-02-29", to: "2028-03-01" });
    expect(readFilters(new URLSearchParams(writeFilters(f).slice(1)))).toEqual(f);
  });

  it("drops a date that does not exist, as any malformed value, rather than reading another day", () => {
    for (const bad of ["2026-02-30", "2027-02-29", "9999-99-99", "2026-4-1", "today"]) {
      expect(readFilters(new URLSearchParams({ from: bad, to: bad })), bad).toMatchObject({ from: undefined, to: undefined });
    }
  });
});
