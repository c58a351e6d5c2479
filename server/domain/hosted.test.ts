import { describe, expect, it } from "vitest";
import {
  ATTEMPT_PHASE,
  closedPageFailureMessage,
  CUSTOMER_FAILURE_MESSAGES,
  formatCountdown,
  formatHarareTime,
  formatOwnAttemptKeys,
  formatPageAmount,
  GENERIC_FAILURE_MESSAGE,
  LATE_CONFIRMATION_WINDOW_MS,
  MAX_ATTEMPT_KEYS,
  parseOwnAttemptKeys,
  PHASE_IS_FINAL,
  returnToMerchant,
  secondsLeft,
  successRedirect,
  watchesForLateConfirmation,
  withOwnAttemptKey,
} from "./hosted";
import { formatAmount } from "./money";
import { PAYMENT_STATUSES, TERMINAL } from "./payment-status";

describe("attempt phases", () => {
  it("never shows unknown or unresolved as failed, and are final exactly when the payment is terminal", () => {
    expect(ATTEMPT_PHASE.unknown).toBe("confirming");
    expect(ATTEMPT_PHASE.unresolved).toBe("confirming");
    for (const status of PAYMENT_STATUSES) expect(PHASE_IS_FINAL[ATTEMPT_PHASE[status]]).toBe(TERMINAL[status]);
  });
});

describe("countdown", () => {
  it("counts whole seconds left by the given clock, never below zero", () => {
    const expires = Date.parse("2026-11-22T10:03:00Z");
    expect(secondsLeft(expires, Date.parse("2026-11-22T10:00:00Z"))).toBe(180);
    expect(secondsLeft(expires, Date.parse("2026-11-22T10:02:59.100Z"))).toBe(1);
    expect(secondsLeft(expires, Date.parse("2026-11-22T10:04:00Z"))).toBe(0);
  });

  it.each([
    [180, "3:00"],
    [61, "1:01"],
    [9, "0:09"],
    [0, "0:00"],
    [-5, "0:00"],
  ])("shows %i s as %s", (s, text) => {
    expect(formatCountdown(s)).toBe(text);
  });
});

describe("formatPageAmount", () => {
  it("holds the currency and the number together with a no-break space, and says what formatAmount says", () => {
    expect(formatPageAmount(2_538, "USD")).toBe("USD\u00a025.38");
    expect(formatPageAmount(12_345_678, "ZWG")).toBe("ZWG\u00a0123,456.78");
    expect(formatPageAmount(2_538, "USD").replace("\u00a0", " ")).toBe(formatAmount(2_538, "USD"));
  });
});

describe("formatHarareTime", () => {
  it("shows the time in Harare (UTC+2), across midnight and the year's end", () => {
    expect(formatHarareTime("2026-11-22T05:18:09.000Z")).toBe("22 Nov 2026, 07:18 CAT");
    expect(formatHarareTime("2026-12-31T22:30:00.000Z")).toBe("1 Jan 2027, 00:30 CAT");
  });
});

describe("returnToMerchant", () => {
  it("is the cancel_url, else the home page of the success_url's site, else nothing", () => {
    expect(returnToMerchant({ cancel_url: "https://shop.example/cart", success_url: "https://shop.example/done" })).toBe("https://shop.example/cart");
    expect(returnToMerchant({ cancel_url: null, success_url: "https://shop.example:8443/done?cs={CHECKOUT_SESSION_ID}" })).toBe("https://shop.example:8443/");
    expect(returnToMerchant({ cancel_url: null, success_url: null })).toBeNull();
  });
});

describe("successRedirect", () => {
  it("puts the session id where the merchant asked for it, and leaves other URLs alone", () => {
    expect(successRedirect("https://shop.example/done?cs={CHECKOUT_SESSION_ID}", "cs_1")).toBe("https://shop.example/done?cs=cs_1");
    expect(successRedirect("https://shop.example/done", "cs_1")).toBe("https://shop.example/done");
  });
});

describe("an expired attempt on a hosted page", () => {
  it("is still asked about for a while after it expired, in case the provider confirms it late; nothing else is", () => {
    const expires_at = "2026-11-29T10:00:00.000Z";
    const at = (ms: number) => new Date(Date.parse(expires_at) + ms).toISOString();
    expect(watchesForLateConfirmation({ phase: "expired", expires_at }, at(1_000))).toBe(true);
    expect(watchesForLateConfirmation({ phase: "expired", expires_at }, at(LATE_CONFIRMATION_WINDOW_MS - 1_000))).toBe(true);
    expect(watchesForLateConfirmation({ phase: "expired", expires_at }, at(LATE_CONFIRMATION_WINDOW_MS))).toBe(false);
    for (const phase of ["waiting", "confirming", "succeeded", "failed"] as const) expect(watchesForLateConfirmation({ phase, expires_at }, at(1_000))).toBe(false);
    expect(watchesForLateConfirmation(null, at(0))).toBe(false);
  });
});

describe("a failed attempt on a page that takes no other", () => {
  it("keeps the reason and says nothing was taken, without advice to try again", () => {
    expect(closedPageFailureMessage(CUSTOMER_FAILURE_MESSAGES.insufficient_funds)).toBe(
      "Your wallet does not hold enough money for this payment. You have not been charged.",
    );
    expect(closedPageFailureMessage(CUSTOMER_FAILURE_MESSAGES.declined)).toBe("Your wallet provider declined the payment. You have not been charged.");
    expect(closedPageFailureMessage(GENERIC_FAILURE_MESSAGE)).toBe(GENERIC_FAILURE_MESSAGE);
    expect(closedPageFailureMessage(null)).toBe("You have not been charged.");
    for (const message of Object.values(CUSTOMER_FAILURE_MESSAGES)) {
      const said = closedPageFailureMessage(message);
      expect(said).not.toMatch(/try again|top up|Check the number/i);
      expect(said.match(/You have not been charged\./g)).toHaveLength(1);
    }
  });
});

describe("the attempt keys a browser made payments with, kept in its cookie", () => {
  it("keep the newest first, once each, and no more than a page may ask about", () => {
    let keys: string[] = [];
    for (const key of ["k1", "k2", "k1", "k3", "k4", "k5", "k6"]) keys = withOwnAttemptKey(keys, key);
    expect(keys).toEqual(["k6", "k5", "k4", "k3", "k1"].slice(0, MAX_ATTEMPT_KEYS));
    expect(parseOwnAttemptKeys(formatOwnAttemptKeys(keys))).toEqual(keys);
    const uuid = "0b6f3a52-7e0c-4bb1-9d55-2f1d9d1f7a10";
    expect(parseOwnAttemptKeys(formatOwnAttemptKeys(withOwnAttemptKey([], uuid)))).toEqual([uuid]);
  });

  it("keep no key a cookie could not carry as it is, and read nothing else from it", () => {
    for (const odd of ["", "a;b", "a.b", "a b", "k".repeat(65), "é"]) expect(withOwnAttemptKey(["k1"], odd)).toEqual(["k1"]);
    expect(parseOwnAttemptKeys(undefined)).toEqual([]);
    expect(parseOwnAttemptKeys("k1..k2.%20.k3;x")).toEqual(["k1", "k2"]);
  });
});
