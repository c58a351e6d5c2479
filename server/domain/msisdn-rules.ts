// Mobile-number rules for Zimbabwean wallets, shared by the server and the hosted pages' island.
// They take libphonenumber's parser as an argument: the server passes the full "max" build
// (msisdn.ts), the pages pass the core with Zimbabwe's metadata alone (msisdn-zw.ts), and both
// answer the same for every input (msisdn.test.ts checks it over generated numbers).
//
// Max-level metadata is needed either way: the smaller sets cannot tell a landline from a
// mobile number, and charging a landline can never succeed.
import type { CountryCode, PhoneNumber } from "libphonenumber-js/core";

/** libphonenumber's `parsePhoneNumberFromString` with its metadata already chosen. */
export type PhoneParser = (text: string, options: { defaultCountry: CountryCode; extract: boolean }) => PhoneNumber | undefined;

export type WalletNetwork = "ecocash" | "onemoney" | "telecash";

export const NETWORK_NAMES: Record<WalletNetwork, string> = {
  ecocash: "EcoCash",
  onemoney: "OneMoney",
  telecash: "Telecash",
};

export type MsisdnResult =
  | { ok: true; msisdn: string; network: WalletNetwork }
  | { ok: false; message: string };

// These strings reach customers verbatim, so they stay plain and always show
// an example of the form we expect rather than describing it abstractly.
const MESSAGES = {
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

// No real number needs more than this even with generous punctuation; the cap
// stops pathological input from ever reaching the parser.
const MAX_INPUT_LENGTH = 32;

// Only what people genuinely type around a phone number. Anything else (letters,
// "ext", tabs, full-width digits, a second "+") means we cannot be sure which
// number was meant, and guessing with someone's money is not acceptable. The one "+" may sit
// inside the bracket people put round the calling code: "(+263) 77 123 4567".
const ALLOWED_CHARACTERS = /^\(?\+?[0-9 \u00a0\-.()]*$/;
/** The number is written in its international form: it starts with "+", or "(+". */
const LEADING_PLUS = /^\(?\+/;

const ZIMBABWE_CALLING_CODE = "263";

// libphonenumber's metadata knows which ranges are mobile but not who operates
// them, so wallet routing relies on the operators' own prefix allocations.
const NETWORK_BY_PREFIX: Readonly<Record<string, WalletNetwork>> = {
  "77": "ecocash",
  "78": "ecocash",
  "71": "onemoney",
  "73": "telecash",
};

const STRICT_FORM = /^2637[0-9]{8}$/;

function fail(message: string): MsisdnResult {
  return { ok: false, message };
}

/** Reads a number as people type it and answers its strict form, or a message for the customer. */
export const msisdnNormaliser =
  (parsePhoneNumberFromString: PhoneParser) =>
  (input: unknown): MsisdnResult => {
  if (input === undefined || input === null) return fail(MESSAGES.empty);
  // A JSON number would already have lost any leading zero, so it is refused
  // rather than reinterpreted.
  if (typeof input !== "string") return fail(MESSAGES.notANumber);
  if (input.length > MAX_INPUT_LENGTH) return fail(MESSAGES.invalid);

  const trimmed = input.trim();
  if (trimmed === "") return fail(MESSAGES.empty);
  if (!ALLOWED_CHARACTERS.test(trimmed)) return fail(MESSAGES.notANumber);

  const hasPlus = LEADING_PLUS.test(trimmed);
  const digits = trimmed.replace(/[^0-9]/g, "");
  if (digits === "") return fail(MESSAGES.notANumber);

  // People often copy the international form without its "+". Without this,
  // "263…" would be read as a national number and only rescued by a parser
  // heuristic we would rather not depend on.
  const bareInternational = !hasPlus && digits.length === 12 && digits.startsWith(ZIMBABWE_CALLING_CODE);
  const international = hasPlus || bareInternational || digits.startsWith("00");
  const candidate = hasPlus || bareInternational ? `+${digits}` : digits;

  const parsed = parsePhoneNumberFromString(candidate, { defaultCountry: "ZW", extract: false });
  if (!parsed) {
    // An unknown calling code is still clearly a foreign number to the customer,
    // but "+077…" is a local number with a stray "+", not a foreign one.
    const afterExit = hasPlus || bareInternational ? digits : digits.slice(2);
    const looksForeign = international && /^[1-9]/.test(afterExit) && !afterExit.startsWith(ZIMBABWE_CALLING_CODE);
    return fail(looksForeign ? MESSAGES.foreign : MESSAGES.invalid);
  }
  if (parsed.countryCallingCode !== ZIMBABWE_CALLING_CODE) return fail(MESSAGES.foreign);
  if (parsed.country !== "ZW") return fail(MESSAGES.invalid);

  // With max metadata a number is valid exactly when it has a type (libphonenumber's isValid()
  // is getType() !== undefined), so one lookup answers both and the ranges are matched once.
  const type = parsed.getType();
  if (type === undefined) return fail(MESSAGES.invalid);
  if (type === "FIXED_LINE") return fail(MESSAGES.landline);
  if (type !== "MOBILE") return fail(MESSAGES.notMobile);

  const msisdn = `${ZIMBABWE_CALLING_CODE}${parsed.nationalNumber}`;
  // Defensive: a metadata update must never let a differently shaped number
  // through to providers that expect exactly twelve digits.
  if (!STRICT_FORM.test(msisdn)) return fail(MESSAGES.invalid);

  const network = networkOf(msisdn);
  // libphonenumber also accepts ranges no supported wallet operates (e.g. 072,
  // 0751, 0790/0791); charging those would only fail later at the provider.
  if (!network) return fail(MESSAGES.unsupportedNetwork);

  return { ok: true, msisdn, network };
  };

function assertStrict(strict: string): void {
  if (typeof strict !== "string" || !STRICT_FORM.test(strict)) {
    throw new Error("Expected a strict MSISDN of the form 2637XXXXXXXX");
  }
}

// Shows just enough for a customer to recognise their own number (network and
// ending) without exposing it in receipts, logs or shared screens.
export function maskMsisdn(strict: string): string {
  assertStrict(strict);
  return `+263 ${strict.slice(3, 5)} *** *${strict.slice(9)}`;
}

export function formatMsisdnLocal(strict: string): string {
  assertStrict(strict);
  return `0${strict.slice(3, 5)} ${strict.slice(5, 8)} ${strict.slice(8)}`;
}

export function networkOf(strict: string): WalletNetwork | undefined {
  if (typeof strict !== "string" || !STRICT_FORM.test(strict)) return undefined;
  return NETWORK_BY_PREFIX[strict.slice(3, 5)];
}

/**
 * The wallet a number is on, as the customer types it (before it is complete): from the two
 * digits after the trunk `0` or the country code, in any of the accepted forms.
 */
export function networkHint(input: string): WalletNetwork | undefined {
  const trimmed = input.trim();
  if (trimmed.length > MAX_INPUT_LENGTH || !ALLOWED_CHARACTERS.test(trimmed)) return undefined;
  let digits = trimmed.replace(/[^0-9]/g, "");
  if (digits.startsWith("00")) digits = digits.slice(2);
  if (LEADING_PLUS.test(trimmed) || digits.startsWith(ZIMBABWE_CALLING_CODE)) {
    if (!digits.startsWith(ZIMBABWE_CALLING_CODE)) return undefined;
    digits = digits.slice(ZIMBABWE_CALLING_CODE.length);
  }
  if (digits.startsWith("0")) digits = digits.slice(1);
  return digits.length >= 2 ? NETWORK_BY_PREFIX[digits.slice(0, 2)] : undefined;
}
