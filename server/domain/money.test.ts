import { describe, expect, it } from "vitest";
import { parseMajorAmount, toMajorInput } from "./money";

describe("parseMajorAmount", () => {
  it("turns typed major units into minor units digit by digit", () => {
    const cases: [string, number][] = [
      ["25", 2_500],
      ["25.5", 2_550],
      ["25.50", 2_550],
      ["0.29", 29],
      ["0.01", 1],
      ["1.10", 110],
      ["4.35", 435],
      ["1,250.75", 125_075],
      [" 007.5 ", 750],
      ["USD 12.34", 1_234],
      ["12.", 1_200],
      ["999999.99", 99_999_999],
    ];
    for (const [typed, amount] of cases) expect(parseMajorAmount(typed, "USD"), typed).toEqual({ ok: true, amount });
  });

  it("refuses what is not an amount, too precise, zero or too large", () => {
    for (const typed of ["", "abc", "-5", "1e3", "1.2.3", "12,34", ".5", "1 000", "0", "0.00", "1.234", "1000000", "99999999999999999999"]) {
      expect(parseMajorAmount(typed, "ZWG"), typed).toMatchObject({ ok: false });
    }
    expect(parseMajorAmount("1.234", "USD")).toEqual({ ok: false, message: "USD has 2 decimal places at most." });
  });
});

describe("toMajorInput", () => {
  it("writes minor units back as a plain decimal that parseMajorAmount reads as the same amount", () => {
    for (const amount of [1, 29, 1_250, 99_999_999]) {
      expect(toMajorInput(amount, "USD")).toMatch(/^\d+\.\d\d$/);
      expect(parseMajorAmount(toMajorInput(amount, "USD"), "USD")).toEqual({ ok: true, amount });
    }
  });
});
