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

const RANDOM_LIMIT = 32n ** BigInt(RANDOM_CHARS);
const STEP_CHARS = 8; // a step of up to 2^40

const decode = (chars: string) => [...chars].reduce((n, c) => n * 32n + BigInt(ALPHABET.indexOf(c)), 0n);
function encodeRandom(n: bigint): string {
  let out = "";
  for (let i = 0; i < RANDOM_CHARS; i++, n >>= 5n) out = ALPHABET[Number(n & 31n)]! + out;
  return out;
}

// The last id's time and random part: ids made in one millisecond by this process sort in the
// order they were made (a list's "newest first" then holds within the millisecond too).
let lastTime = Number.NaN;
let lastRandom = "";

/**
 * The random part of an id made at `time`: fresh, or, in the millisecond of the last id, the last
 * one's plus a random step (1 to 2^40): in order, and still not to be guessed from its neighbour,
 * since some ids are addresses (a checkout session's page). Should the step overflow (1 in 2^40 per
 * id), the part is fresh and only that pair is out of order.
 */
function randomPart(time: number): string {
  if (time === lastTime) {
    const next = decode(lastRandom) + 1n + decode(randomChars(STEP_CHARS));
    if (next < RANDOM_LIMIT) return (lastRandom = encodeRandom(next));
  }
  lastTime = time;
  return (lastRandom = randomChars(RANDOM_CHARS));
}

export function newId(kind: IdKind, now: Date = new Date()): string {
  const time = now.getTime();
  return `${ID_PREFIXES[kind]}_${encodeTime(time)}${randomPart(time)}`;
}

/** Random secret material (API keys, webhook secrets): 32 chars of base32 = 160 bits. */
export function randomSecret(chars = 32): string {
  return randomChars(chars);
}
