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

export type ParsedAmount = { ok: true; amount: number } | { ok: false; message: string };

/**
 * What staff type ("25", "1,250.5", "0.99") as minor units, from the digits themselves: no float
 * ever holds the amount, so "0.29" is 29 cents and never 28.999….
 */
export function parseMajorAmount(typed: string, currency: Currency): ParsedAmount {
  const digits = MINOR_UNITS[currency];
  const s = typed.trim().replace(/^[A-Za-z]{3}\s*/, "");
  const shape = new RegExp(`^(\\d{1,3}(?:,\\d{3})+|\\d+)(?:\\.(\\d{0,${digits}}))?$`);
  const m = shape.exec(s);
  if (!m) {
    return /\.\d+$/.test(s) && new RegExp(`\\.\\d{${digits + 1},}$`).test(s)
      ? { ok: false, message: `${currency} has ${digits} decimal places at most.` }
      : { ok: false, message: "Enter an amount such as 25 or 1,250.50." };
  }
  const whole = m[1]!.replace(/,/g, "").replace(/^0+(?=\d)/, "");
  const frac = (m[2] ?? "").padEnd(digits, "0");
  // Longer than the largest amount's digits: refuse before the number could lose precision.
  if (whole.length > String(MAX_AMOUNT).length) return { ok: false, message: `At most ${formatAmount(MAX_AMOUNT, currency)}.` };
  const amount = Number(whole) * 10 ** digits + Number(frac || "0");
  if (amount < 1) return { ok: false, message: "The amount must be more than zero." };
  if (amount > MAX_AMOUNT) return { ok: false, message: `At most ${formatAmount(MAX_AMOUNT, currency)}.` };
  return { ok: true, amount };
}

/** Minor units as the plain decimal staff would type back ("1250" cents → "12.50"), for a form's default. */
export function toMajorInput(amount: number, currency: Currency): string {
  const digits: number = MINOR_UNITS[currency];
  const scale = 10 ** digits;
  return digits === 0 ? String(amount) : `${Math.floor(amount / scale)}.${String(amount % scale).padStart(digits, "0")}`;
}
