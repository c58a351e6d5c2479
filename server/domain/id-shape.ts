// The shape of public ids, without making any: safe for the browser (ids.ts makes them, with
// node's CSPRNG, and re-exports all of this).

/**
 * Every public id is `<prefix>_<26 chars>`: 10 chars of millisecond time then 16 random chars,
 * both in lowercase Crockford base32. Fixed width and a byte-ordered alphabet mean that sorting
 * ids as strings (COLLATE "C") sorts them by creation time, which keyset pagination relies on.
 */
export const ID_PREFIXES = {
  merchant: "mer",
  staffUser: "usr",
  apiKey: "key",
  payment: "pay",
  refund: "re",
  paymentLink: "plink",
  checkoutSession: "cs",
  event: "evt",
  webhookEndpoint: "we",
  webhookDelivery: "whd",
  webhookAttempt: "wha",
  settlement: "stl",
  request: "req",
  outbox: "obx",
  providerCallback: "pcb",
  securityEvent: "sec",
  eventReplay: "evr",
} as const;

export type IdKind = keyof typeof ID_PREFIXES;

export const ALPHABET = "0123456789abcdefghjkmnpqrstvwxyz";
const TIME_CHARS = 10;
export const RANDOM_CHARS = 16;
/** What follows an id's prefix and underscore, as a regular expression's source. */
const ID_BODY_SOURCE = `[${ALPHABET}]{${TIME_CHARS + RANDOM_CHARS}}`;
const ID_BODY = new RegExp(`^${ID_BODY_SOURCE}$`);

export function encodeTime(ms: number): string {
  let out = "";
  let rest = Math.floor(ms);
  for (let i = 0; i < TIME_CHARS; i++) {
    out = ALPHABET[rest % 32] + out;
    rest = Math.floor(rest / 32);
  }
  return out;
}

/** The shape of an id of `kind`, as a regular expression's source (for API documents). */
export function idPattern(kind: IdKind): string {
  return `^${ID_PREFIXES[kind]}_${ID_BODY_SOURCE}$`;
}

/** True when `value` is shaped like an id of `kind`; says nothing about whether it exists. */
export function isId(kind: IdKind, value: string): boolean {
  const prefix = `${ID_PREFIXES[kind]}_`;
  return value.startsWith(prefix) && ID_BODY.test(value.slice(prefix.length));
}

/** The creation time encoded in an id, to the millisecond. */
export function idTime(id: string): Date {
  const body = id.slice(id.indexOf("_") + 1, id.indexOf("_") + 1 + TIME_CHARS);
  let ms = 0;
  for (const ch of body) ms = ms * 32 + ALPHABET.indexOf(ch);
  return new Date(ms);
}

/**
 * The smallest id of `kind` that can be created at `at`: `id >= idLowerBound(at)` selects exactly
 * the ids created at or after `at`, which lets time filters use the id index.
 */
export function idLowerBound(kind: IdKind, at: Date): string {
  return `${ID_PREFIXES[kind]}_${encodeTime(Math.max(0, at.getTime()))}${"0".repeat(RANDOM_CHARS)}`;
}
