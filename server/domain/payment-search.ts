import { isId } from "./ids";
import { normaliseMsisdn } from "./msisdn";

/**
 * What a payments search box finds payments by. A number is also looked for as typed among
 * references: a merchant whose references are phone-like digits (`0712263229`) finds them too.
 */
export type PaymentSearch =
  | { by: "reference"; reference: string }
  | { by: "number"; msisdn: string; reference: string }
  | { by: "id"; paymentId: string };

/**
 * What staff typed into the dashboard's payments search: a payment id (in any case), a customer's number in any
 * form people write one (`077 123 4567`, `+263771234567`), or part of a reference. Only text made of
 * a phone number's characters, with the digits of a whole number, is read as a number (and as part
 * of a reference), so a reference such as `INV-0771234567` or `2024-11` stays a reference alone.
 */
export function readPaymentSearch(text: string): PaymentSearch {
  const q = text.trim();
  // Ids are lower case; one read aloud or copied from a capitalised export may not be.
  if (isId("payment", q.toLowerCase())) return { by: "id", paymentId: q.toLowerCase() };
  if (/^[+\d\s().-]+$/.test(q) && q.replace(/\D/g, "").length >= 9) {
    const number = normaliseMsisdn(q);
    if (number.ok) return { by: "number", msisdn: number.msisdn, reference: q };
  }
  return { by: "reference", reference: q };
}

/**
 * The longest start that all these references share, in lower case (a reference search ignores
 * case): `inv-0` for INV-00999951 … INV-01000000. Empty for fewer than two.
 */
export function sharedStart(references: readonly string[]): string {
  if (references.length < 2) return "";
  let start = references[0]!.toLowerCase();
  for (const reference of references) {
    const lower = reference.toLowerCase();
    let n = 0;
    while (n < start.length && n < lower.length && start[n] === lower[n]) n++;
    start = start.slice(0, n);
    if (start === "") break;
  }
  return start;
}

/**
 * The part of a reference search that tells references apart, to find candidates by, when the
 * search begins with characters the merchant's references share: `042137` for `INV-0042137` when
 * every reference starts `INV-0`. The trigram index keeps, for each trigram, every reference that
 * has it, so a search made of a shared prefix's trigrams (`inv`, ` 00`) reads them all, a million
 * for a merchant with a million payments, to keep ten. Candidates found by the rest are then held
 * to the whole search, so the answer is the same.
 *
 * Undefined when there is nothing to drop, or when the rest has no run of three letters or digits
 * (the only parts of a search pg_trgm finds candidates by).
 */
export function distinctivePart(search: string, shared: string): string | undefined {
  const lower = search.toLowerCase();
  // Lower-casing that changes a string's length would misplace the cut: keep the whole search.
  if (shared === "" || lower.length !== search.length) return undefined;
  let drop = Math.min(lower.length - 1, shared.length);
  // Never between the two halves of a character outside the BMP (an emoji): the rest would start
  // with half a character, which the driver sends as U+FFFD and which then matches nothing.
  while (drop > 0 && (isLowSurrogate(search.charCodeAt(drop)) || !shared.includes(lower.slice(0, drop)))) drop--;
  if (drop === 0) return undefined;
  const rest = search.slice(drop);
  return /[\p{L}\p{N}]{3}/u.test(rest) ? rest : undefined;
}

function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}
