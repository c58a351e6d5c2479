import { describe, expect, it } from "vitest";
import { STANDARD_FEE_PLAN, feePlanSchema, quoteFee, type FeePlan } from "./fees";
import { formatAmount } from "./money";

const plan: FeePlan = { rate_bps: 150, fixed: {}, minimum: {} };

describe("quoteFee", () => {
  it.each([
    // amount, expected fee at 1.5%: x.5 cents round up, below .5 round down
    [100, 2], // 1.5 → 2
    [1_000, 15],
    [1_033, 15], // 15.495 → 15
    [1_034, 16], // 15.51 → 16
    [1_100, 17], // 16.5 → 17 (half up)
    [33, 0], // 0.495 → 0
    [34, 1], // 0.51 → 1
    [1, 0],
    [99_999_999, 1_500_000], // 1,499,999.985 → 1,500,000
  ])("charges %i cents a fee of %i cents", (amount, fee) => {
    expect(quoteFee(plan, "merchant", amount, "USD").fee).toBe(fee);
  });

  it("adds the fee to the charged amount only when the customer bears it", () => {
    expect(quoteFee(plan, "customer", 10_000, "USD")).toEqual({
      amount: 10_000,
      currency: "USD",
      fee: 150,
      fee_bearer: "customer",
      charged_amount: 10_150,
    });
    expect(quoteFee(plan, "merchant", 10_000, "USD").charged_amount).toBe(10_000);
  });

  it("adds the fixed part of the currency and applies the minimum", () => {
    const p: FeePlan = { rate_bps: 100, fixed: { ZWG: 25 }, minimum: { USD: 10 } };
    expect(quoteFee(p, "merchant", 1_000, "ZWG").fee).toBe(35);
    expect(quoteFee(p, "merchant", 100, "USD").fee).toBe(10);
    expect(quoteFee(p, "merchant", 5_000, "USD").fee).toBe(50);
  });

  it("never produces a fractional cent", () => {
    for (let amount = 1; amount < 5_000; amount += 7) {
      expect(Number.isInteger(quoteFee(STANDARD_FEE_PLAN, "customer", amount, "USD").fee)).toBe(true);
    }
  });
});

describe("feePlanSchema", () => {
  it("accepts the standard plan and refuses nonsense", () => {
    expect(feePlanSchema.parse(STANDARD_FEE_PLAN)).toEqual(STANDARD_FEE_PLAN);
    expect(feePlanSchema.safeParse({ rate_bps: -1 }).success).toBe(false);
    expect(feePlanSchema.safeParse({ rate_bps: 1.5 }).success).toBe(false);
    expect(feePlanSchema.safeParse({ rate_bps: 100, fixed: { EUR: 1 } }).success).toBe(false);
  });
});

describe("formatAmount", () => {
  it("formats minor units with grouping", () => {
    expect(formatAmount(123_456_78, "USD")).toBe("USD 123,456.78");
    expect(formatAmount(5, "ZWG")).toBe("ZWG 0.05");
  });
});
