import { describe, expect, it } from "vitest";
import { nextRefundCheckAt, REFUND_CHECK_DELAYS_S } from "./refund-schedule";
import { HOLDING_STATUSES, refundableRemainder } from "./refunds";

describe("refund rules", () => {
  it("pending and succeeded refunds hold the payment's amount; failed ones give it back", () => {
    expect(HOLDING_STATUSES).toEqual(["pending", "succeeded"]);
    expect(refundableRemainder(1_000, 0)).toBe(1_000);
    expect(refundableRemainder(1_000, 999)).toBe(1);
    expect(refundableRemainder(1_000, 1_000)).toBe(0);
  });

  it("asks about a pending refund on a backoff, then hourly for ever", () => {
    const now = new Date("2026-01-01T00:00:00Z");
    const delays = Array.from({ length: 12 }, (_, i) => (nextRefundCheckAt(i, now).getTime() - now.getTime()) / 1000);
    expect(delays.slice(0, REFUND_CHECK_DELAYS_S.length)).toEqual([...REFUND_CHECK_DELAYS_S]);
    expect(delays.slice(REFUND_CHECK_DELAYS_S.length)).toEqual([3600, 3600, 3600]);
    expect([...delays].sort((a, b) => a - b)).toEqual(delays);
  });
});
