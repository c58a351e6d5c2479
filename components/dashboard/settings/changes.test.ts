import { describe, expect, it } from "vitest";
import { settingsChanges } from "./changes";

describe("settingsChanges", () => {
  const from = { bearer: "merchant", seconds: "180" } as const;

  it("sends only what was changed here, not what the form showed when it opened", () => {
    // Another admin set the customer to bear the fee meanwhile; this form changes only the expiry.
    expect(settingsChanges(from, { bearer: "merchant", seconds: "240" })).toEqual({ paymentExpirySeconds: 240 });
    expect(settingsChanges(from, { bearer: "customer", seconds: "180" })).toEqual({ feeBearer: "customer" });
    expect(settingsChanges(from, { bearer: "customer", seconds: " 300 " })).toEqual({ feeBearer: "customer", paymentExpirySeconds: 300 });
  });

  it("sends nothing when nothing was changed", () => {
    expect(settingsChanges(from, { bearer: "merchant", seconds: "180 " })).toEqual({});
  });
});
