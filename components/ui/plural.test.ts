import { describe, expect, it } from "vitest";
import { count, plural } from "./plural";

describe("count and plural", () => {
  it("separate thousands, as the dashboard's amounts do", () => {
    expect(count(0)).toBe("0");
    expect(count(8604)).toBe("8,604");
    expect(count(1_234_567)).toBe("1,234,567");
  });

  it("take the singular for one only", () => {
    expect(plural(1, "attempt")).toBe("1 attempt");
    expect(plural(0, "attempt")).toBe("0 attempts");
    expect(plural(86_038, "delivery", "deliveries")).toBe("86,038 deliveries");
  });
});
