import fc from "fast-check";
import maxMetadata from "libphonenumber-js/metadata.max.json";
import { describe, it, expect } from "vitest";
import {
  NETWORK_NAMES,
  formatMsisdnLocal,
  maskMsisdn,
  networkHint,
  networkOf,
  normaliseMsisdn,
  type WalletNetwork,
} from "./msisdn";
import { normaliseMsisdnZw, ZW_METADATA } from "./msisdn-zw";

// Spelled out here rather than imported so a change to customer-facing copy is
// a deliberate, reviewed edit to both files.
const MESSAGE = {
  empty: "Enter your mobile number, for example 077 123 4567.",
  notANumber: "Enter a mobile number using digits only, for example 077 123 4567.",
  foreign: "Only Zimbabwean mobile numbers can be charged. Enter a number such as 077 123 4567.",
  landline: "That looks like a landline number. Enter a mobile wallet number, for example 077 123 4567.",
  notMobile: "That is not a mobile number. Enter a mobile wallet number, for example 077 123 4567.",
  invalid:
    "That number is not a valid Zimbabwean mobile number. Check it and try again, for example 077 123 4567.",
  unsupportedNetwork:
    "That number is not on EcoCash, OneMoney or Telecash. Enter a mobile wallet number, for example 077 123 4567.",
} as const;

type Category = keyof typeof MESSAGE;

const NBSP = "\u00a0";

const VALID: ReadonlyArray<[string, string, WalletNetwork]> = [
  // EcoCash 077
  ["0771234567", "263771234567", "ecocash"],
  ["077 123 4567", "263771234567", "ecocash"],
  ["+263 77 123 4567", "263771234567", "ecocash"],
  ["263771234567", "263771234567", "ecocash"],
  ["00263771234567", "263771234567", "ecocash"],
  ["771234567", "263771234567", "ecocash"],
  ["+263-77-123-4567", "263771234567", "ecocash"],
  ["(077) 123 4567", "263771234567", "ecocash"],
  ["077.123.4567", "263771234567", "ecocash"],
  ["  0771234567  ", "263771234567", "ecocash"],
  [`077${NBSP}123${NBSP}4567`, "263771234567", "ecocash"],
  [`${NBSP}+263771234567${NBSP}`, "263771234567", "ecocash"],
  ["\t0771234567\n", "263771234567", "ecocash"],
  ["+263771234567", "263771234567", "ecocash"],
  ["263 77 123 4567", "263771234567", "ecocash"],
  ["+263 (0)77 123 4567", "263771234567", "ecocash"],
  ["(+263) 77 123 4567", "263771234567", "ecocash"],
  ["(+263)771234567", "263771234567", "ecocash"],
  ["00 263 77 123 4567", "263771234567", "ecocash"],
  // EcoCash 078
  ["0781234567", "263781234567", "ecocash"],
  ["078 987 6543", "263789876543", "ecocash"],
  ["+263 78 555 0000", "263785550000", "ecocash"],
  ["263788000111", "263788000111", "ecocash"],
  ["788000111", "263788000111", "ecocash"],
  // OneMoney 071
  ["0711234567", "263711234567", "onemoney"],
  ["071 234 5678", "263712345678", "onemoney"],
  ["+263-71-777-7777", "263717777777", "onemoney"],
  ["00263712345678", "263712345678", "onemoney"],
  ["(071) 999 0001", "263719990001", "onemoney"],
  // Telecash 073
  ["0731234567", "263731234567", "telecash"],
  ["073.111.1111", "263731111111", "telecash"],
  ["+263 73 987 6543", "263739876543", "telecash"],
  ["263732000000", "263732000000", "telecash"],
  ["731234567", "263731234567", "telecash"],
];

const INVALID: ReadonlyArray<[string, unknown, Category]> = [
  // Landlines: real-world shaped Harare and Bulawayo numbers.
  ["Harare landline", "0242704000", "landline"],
  ["Harare landline, spaced", "0242 704 000", "landline"],
  ["Harare landline, international", "+263 242 704000", "landline"],
  ["Bulawayo landline", "0292 123456", "landline"],
  // Bulawayo numbers are 0292 + six digits; with only five the parser finds no
  // valid number, so the customer gets the generic message, not "landline".
  ["Bulawayo landline, one digit short", "0292 12345", "invalid"],
  // Non-geographic Zimbabwean ranges are valid numbers but not wallets.
  ["VoIP 086xx", "08677123456", "notMobile"],
  ["toll-free 080", "+263 80 12345", "notMobile"],
  // Foreign.
  ["South African mobile", "+27 82 123 4567", "foreign"],
  ["US number", "+1 202 555 0143", "foreign"],
  ["UK landline", "+44 20 7946 0958", "foreign"],
  ["South African mobile via 00", "0027821234567", "foreign"],
  ["unknown calling code", "+999123456789", "foreign"],
  // Wrong length.
  ["too short", "07712345", "invalid"],
  ["too long", "07712345678", "invalid"],
  ["international, too short", "+26377123456", "invalid"],
  ["calling code only", "+263", "invalid"],
  ["stray plus before local number", "+0771234567", "invalid"],
  // Letters and other characters.
  ["letter in the middle", "07712345a7", "notANumber"],
  ["words around the number", "call 0771234567", "notANumber"],
  ["double plus", "++263771234567", "notANumber"],
  ["plus in the middle", "263+771234567", "notANumber"],
  ["slash separator", "077/123/4567", "notANumber"],
  ["internal tab", "077\t1234567", "notANumber"],
  ["full-width digits", "０７７１２３４５６７", "notANumber"],
  ["punctuation only", "(--)", "notANumber"],
  // Empty and non-string.
  ["empty string", "", "empty"],
  ["whitespace only", "   ", "empty"],
  ["non-breaking spaces only", `${NBSP}${NBSP}`, "empty"],
  ["undefined", undefined, "empty"],
  ["null", null, "empty"],
  ["number", 771234567, "notANumber"],
  ["object", { msisdn: "0771234567" }, "notANumber"],
  ["array", ["0771234567"], "notANumber"],
  ["80-character string", "0".repeat(80), "invalid"],
  ["33 characters of valid-looking input", `${" ".repeat(23)}0771234567`, "invalid"],
  // Ranges outside the metadata's mobile pattern 7(?:[1278]\d|3[1-9]|51|9[01])\d{6}.
  ["unassigned 074", "0741234567", "invalid"],
  ["unassigned 076", "0761234567", "invalid"],
  ["unassigned 070", "0701234567", "invalid"],
  ["unassigned 0752", "0752123456", "invalid"],
  ["unassigned 0795", "0795123456", "invalid"],
  ["Telecel 0730 (not in metadata)", "0730123456", "invalid"],
  // Ranges the metadata calls MOBILE but no supported wallet operates.
  ["valid mobile 0751", "0751234567", "unsupportedNetwork"],
  ["valid mobile 0791", "0791234567", "unsupportedNetwork"],
  ["valid mobile 0790", "0790123456", "unsupportedNetwork"],
  ["valid mobile 072", "0721234567", "unsupportedNetwork"],
];

describe("normaliseMsisdn", () => {
  it.each(VALID)("accepts %j as %s (%s)", (input, msisdn, network) => {
    expect(normaliseMsisdn(input)).toEqual({ ok: true, msisdn, network });
  });

  it.each(INVALID)("refuses %s", (_label, input, category) => {
    expect(normaliseMsisdn(input)).toEqual({ ok: false, message: MESSAGE[category] });
  });

  it("has corpora of the intended size", () => {
    expect(VALID.length).toBeGreaterThanOrEqual(25);
    expect(INVALID.length).toBeGreaterThanOrEqual(20);
    for (const network of ["ecocash", "onemoney", "telecash"] as const) {
      expect(VALID.some(([, , n]) => n === network)).toBe(true);
    }
  });

  it.each([1, 2, 3, 4, 5, 6, 7].map((n) => `26377000000${n}`))(
    "accepts sandbox number %s unchanged as EcoCash",
    (sandbox) => {
      expect(normaliseMsisdn(sandbox)).toEqual({ ok: true, msisdn: sandbox, network: "ecocash" });
    },
  );

  it("always returns customer-ready messages ending with a full stop", () => {
    for (const [, input] of INVALID) {
      const result = normaliseMsisdn(input);
      expect(result.ok).toBe(false);
      if (!result.ok) expect(result.message).toMatch(/^[A-Z].*\.$/);
    }
  });

  it("is idempotent on its own output", () => {
    for (const [input] of VALID) {
      const first = normaliseMsisdn(input);
      if (!first.ok) throw new Error(`expected ${JSON.stringify(input)} to be valid`);
      expect(normaliseMsisdn(first.msisdn)).toEqual(first);
      expect(normaliseMsisdn(formatMsisdnLocal(first.msisdn))).toEqual(first);
    }
  });
});

describe("maskMsisdn", () => {
  it.each([
    ["263771234567", "+263 77 *** *567"],
    ["263712345678", "+263 71 *** *678"],
    ["263739876543", "+263 73 *** *543"],
    ["263770000001", "+263 77 *** *001"],
  ])("masks %s as %s", (strict, masked) => {
    expect(maskMsisdn(strict)).toBe(masked);
  });

  it.each(VALID.map(([, strict]) => strict))("reveals only the prefix and last 3 digits of %s", (strict) => {
    const masked = maskMsisdn(strict);
    const prefix = strict.slice(3, 5);
    const last3 = strict.slice(9);
    expect(masked.replace(/[^0-9]/g, "")).toBe(`263${prefix}${last3}`);
    const hiddenPart = masked.slice(`+263 ${prefix}`.length, -last3.length);
    expect(hiddenPart).not.toMatch(/[0-9]/);
    expect(masked.endsWith(last3)).toBe(true);
  });

  it.each(["0771234567", "+263771234567", "26377123456", "2637712345678", "263242704000", "", "abc"])(
    "throws for non-strict input %j",
    (input) => {
      expect(() => maskMsisdn(input)).toThrow(Error);
    },
  );
});

describe("formatMsisdnLocal", () => {
  it.each([
    ["263771234567", "077 123 4567"],
    ["263781234567", "078 123 4567"],
    ["263712345678", "071 234 5678"],
    ["263731234567", "073 123 4567"],
    ["263770000001", "077 000 0001"],
  ])("formats %s as %s", (strict, local) => {
    expect(formatMsisdnLocal(strict)).toBe(local);
  });

  it.each(["0771234567", "+263771234567", "263242704000", "26377123456"])("throws for non-strict input %j", (input) => {
    expect(() => formatMsisdnLocal(input)).toThrow(Error);
  });
});

describe("networkOf", () => {
  it.each([
    ["263771234567", "ecocash"],
    ["263781234567", "ecocash"],
    ["263711234567", "onemoney"],
    ["263731234567", "telecash"],
  ] as const)("maps %s to %s", (strict, network) => {
    expect(networkOf(strict)).toBe(network);
  });

  it.each(["263751234567", "263721234567", "263791234567", "0771234567", "+263771234567", "263242704000", ""])(
    "returns undefined for %j",
    (input) => {
      expect(networkOf(input)).toBeUndefined();
    },
  );
});

describe("NETWORK_NAMES", () => {
  it("names every network", () => {
    expect(NETWORK_NAMES).toEqual({ ecocash: "EcoCash", onemoney: "OneMoney", telecash: "Telecash" });
  });
});

describe("the hosted pages' rules (core + Zimbabwe's metadata)", () => {
  it("carry Zimbabwe's entry of the installed max metadata unchanged", () => {
    const max = maxMetadata as unknown as { version: number; country_calling_codes: Record<string, string[]>; countries: Record<string, unknown> };
    expect(ZW_METADATA).toEqual({ version: max.version, country_calling_codes: { "263": max.country_calling_codes["263"] }, countries: { ZW: max.countries.ZW } });
  });

  it.each([...VALID.map(([input]) => input), ...INVALID.map(([, input]) => input)])("answer %j as the server does", (input) => {
    expect(normaliseMsisdnZw(input)).toEqual(normaliseMsisdn(input));
  });

  it("answer every generated number as the server does", () => {
    // What people type: a way to start (local, bare, international, foreign), then digits with
    // the separators they use, sometimes cut short or too long.
    const start = fc.constantFrom("", "0", "+", "+263", "263", "00263", "00", "+27", "0027", "+44", "+1", "+2630");
    const body = fc.array(fc.oneof(fc.constantFrom(..."0123456789"), fc.constantFrom(" ", "-", ".", "(", ")")), { maxLength: 16 });
    const mobileish = fc.tuple(fc.constantFrom("71", "73", "77", "78", "72", "75", "79", "24", "29", "86"), fc.array(fc.constantFrom(..."0123456789"), { minLength: 5, maxLength: 9 }));
    const typed = fc.oneof(
      fc.tuple(start, body).map(([s, b]) => s + b.join("")),
      fc.tuple(start, mobileish).map(([s, [p, rest]]) => s + p + rest.join("")),
    );
    fc.assert(
      fc.property(typed, (input) => {
        expect(normaliseMsisdnZw(input)).toEqual(normaliseMsisdn(input));
      }),
      { numRuns: 3_000 },
    );
  });
});

describe("networkHint", () => {
  it.each([
    ["07", undefined],
    ["077", "ecocash"],
    ["078 1", "ecocash"],
    ["+263 71", "onemoney"],
    ["2637", undefined],
    ["26373", "telecash"],
    ["0026377", "ecocash"],
    ["77", "ecocash"],
    ["072", undefined],
    ["+27 77", undefined],
    ["abc", undefined],
  ] as const)("names the wallet of %j as %s", (input, network) => {
    expect(networkHint(input)).toBe(network);
  });

  it("agrees with the full rules once a number is complete", () => {
    for (const [input, , network] of VALID) expect(networkHint(input)).toBe(network);
  });
});
