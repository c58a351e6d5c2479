import { describe, expect, it } from "vitest";
import { dailyCutoff, itemNet, settlementTotals } from "./settlements";

describe("dailyCutoff", () => {
  it("is the most recent midnight in Harare (22:00 UTC)", () => {
    expect(dailyCutoff(new Date("2026-11-22T03:00:00Z"))).toEqual(new Date("2026-11-21T22:00:00Z"));
    expect(dailyCutoff(new Date("2026-11-21T21:59:59.999Z"))).toEqual(new Date("2026-11-20T22:00:00Z"));
    expect(dailyCutoff(new Date("2026-11-21T22:00:00Z"))).toEqual(new Date("2026-11-21T22:00:00Z"));
    expect(dailyCutoff(new Date("2026-01-01T00:30:00Z"))).toEqual(new Date("2025-12-31T22:00:00Z"));
  });
});

describe("settlementTotals", () => {
  it("nets payments less merchant-borne fees less refunds", () => {
    const items = [
      { kind: "payment", amount: 10_000, merchantFee: 150 },
      { kind: "payment", amount: 5_000, merchantFee: 0 },
      { kind: "refund", amount: 2_500 },
    ] as const;
    expect(settlementTotals(items)).toEqual({ grossAmount: 15_000, feeTotal: 150, refundTotal: 2_500, amount: 12_350, paymentCount: 2, refundCount: 1 });
    expect(items.map(itemNet)).toEqual([9_850, 5_000, -2_500]);
    expect(settlementTotals([])).toEqual({ grossAmount: 0, feeTotal: 0, refundTotal: 0, amount: 0, paymentCount: 0, refundCount: 0 });
  });
});
