import { describe, expect, it } from "vitest";
import { owned } from "./tenancy";

describe("owned", () => {
  const row = { id: "pay_1", merchantId: "mer_a", livemode: false };
  it("keeps the owner's row", () => {
    expect(owned(row, { merchant: { id: "mer_a" }, livemode: false })).toBe(row);
  });
  it("answers another merchant's, the other environment's and a missing row alike", () => {
    expect(owned(row, { merchant: { id: "mer_b" }, livemode: false })).toBeUndefined();
    expect(owned(row, { merchant: { id: "mer_a" }, livemode: true })).toBeUndefined();
    expect(owned(undefined, { merchant: { id: "mer_a" }, livemode: false })).toBeUndefined();
  });
});
