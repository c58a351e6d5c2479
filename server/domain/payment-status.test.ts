import { describe, expect, it } from "vitest";
import { PAYMENT_STATUSES, TERMINAL, TRANSITIONS, canTransition } from "./payment-status";

describe("payment transitions", () => {
  it("never moves a terminal state, but for the provider's late confirmation of an expired payment", () => {
    for (const from of PAYMENT_STATUSES.filter((s) => TERMINAL[s])) {
      for (const to of PAYMENT_STATUSES) expect(canTransition(from, to)).toBe(from === "expired" && to === "succeeded");
    }
  });

  it("allows exactly the transitions of the design", () => {
    const allowed = PAYMENT_STATUSES.flatMap((to) => TRANSITIONS[to].map((from) => `${from}→${to}`)).sort();
    expect(allowed).toEqual(
      [
        "awaiting_customer→unknown",
        "awaiting_customer→succeeded",
        "awaiting_customer→failed",
        "awaiting_customer→expired",
        "unknown→succeeded",
        "unknown→failed",
        "unknown→expired",
        "expired→succeeded",
        "unknown→unresolved",
        "unresolved→succeeded",
        "unresolved→failed",
      ].sort(),
    );
  });

  it("cannot expire an unresolved payment or re-enter awaiting_customer", () => {
    expect(canTransition("unresolved", "expired")).toBe(false);
    for (const from of PAYMENT_STATUSES) expect(canTransition(from, "awaiting_customer")).toBe(false);
  });
});
