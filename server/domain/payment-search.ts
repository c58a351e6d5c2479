import { isId } from "./ids";
import { normaliseMsisdn } from "./msisdn";

/** What a payments search box finds payments by. */
export type PaymentSearch = { reference: string } | { msisdn: string } | { paymentId: string };

/**
 * What staff typed into the dashboard's payments search: a payment id, a customer's number in any
 * form people write one (`077 123 4567`, `+263771234567`), or part of a reference. Only text made of
 * a phone number's characters, with the digits of a whole number, is read as a number, so a
 * reference such as `INV-0771234567` or `2024-11` stays a reference.
 */
export function readPaymentSearch(text: string): PaymentSearch {
  const q = text.trim();
  if (isId("payment", q)) return { paymentId: q };
  if (/^[+\d\s().-]+$/.test(q) && q.replace(/\D/g, "").length >= 9) {
    const number = normaliseMsisdn(q);
    if (number.ok) return { msisdn: number.msisdn };
  }
  return { reference: q };
}
