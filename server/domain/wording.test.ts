import { describe, expect, it } from "vitest";
import { allowedValues } from "./wording";

describe("allowedValues", () => {
  it("names one value alone, two with 'or', more as 'one of … or …'", () => {
    expect(allowedValues(["wallet"])).toBe("wallet");
    expect(allowedValues(["USD", "ZWG"])).toBe("USD or ZWG");
    expect(allowedValues(["awaiting_customer", "unknown", "unresolved"])).toBe("one of awaiting_customer, unknown or unresolved");
    expect(allowedValues([1, 2, 3, 4])).toBe("one of 1, 2, 3 or 4");
  });
});
