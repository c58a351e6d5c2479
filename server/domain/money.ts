/** Amounts are integers in minor units (cents). */
export const CURRENCIES = ["USD", "ZWG"] as const;
export type Currency = (typeof CURRENCIES)[number];

export const METHODS = ["wallet"] as const;
export type PaymentMethod = (typeof METHODS)[number];

export const MINOR_UNITS = { USD: 2, ZWG: 2 } as const satisfies Record<Currency, number>;

/** Largest amount one payment may carry: 999,999.99 in major units. */
export const MAX_AMOUNT = 99_999_999;

export function formatAmount(amount: number, currency: Currency): string {
  const digits = MINOR_UNITS[currency];
  const major = (amount / 10 ** digits).toFixed(digits);
  const [whole = "0", frac] = major.split(".");
  const grouped = whole.replace(/\B(?=(\d{3})+(?!\d))/g, ",");
  return `${currency} ${frac === undefined ? grouped : `${grouped}.${frac}`}`;
}
