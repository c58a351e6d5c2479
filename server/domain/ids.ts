import { randomBytes } from "node:crypto";
import { ALPHABET, encodeTime, ID_PREFIXES, RANDOM_CHARS, type IdKind } from "./id-shape";

export { ID_PREFIXES, idLowerBound, idPattern, idTime, isId, type IdKind } from "./id-shape";

// Random bytes are drawn from the CSPRNG a pool at a time: one call per 256 ids instead of one per
// id (each call costs as much as building the rest of a small request's answer). A byte is used once.
const POOL_BYTES = 4096;
let pool = Buffer.alloc(0);
let poolOffset = 0;

function randomChars(count: number): string {
  if (poolOffset + count > pool.length) {
    pool = randomBytes(POOL_BYTES);
    poolOffset = 0;
  }
  // 256 is a multiple of 32, so `byte % 32` is unbiased.
  let out = "";
  for (let i = poolOffset; i < poolOffset + count; i++) out += ALPHABET[pool[i]! % 32];
  poolOffset += count;
  return out;
}

export function newId(kind: IdKind, now: Date = new Date()): string {
  return `${ID_PREFIXES[kind]}_${encodeTime(now.getTime())}${randomChars(RANDOM_CHARS)}`;
}

/** Random secret material (API keys, webhook secrets): 32 chars of base32 = 160 bits. */
export function randomSecret(chars = 32): string {
  return randomChars(chars);
}
