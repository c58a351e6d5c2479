import { randomBytes, scrypt as scryptCb, timingSafeEqual, type ScryptOptions } from "node:crypto";
import { ServiceError } from "./errors";

/**
 * scrypt runs on libuv's thread pool (four threads), which the rest of the server needs too: the
 * session cookie's key derivation, DNS lookups for webhook deliveries, file reads. A flood of
 * sign-in attempts (each about 0.1–0.4 s of one thread) would queue all of that behind it, so at
 * most two run at once, a bounded number wait, and past that an attempt is refused at once.
 *
 * Such a flood, from anyone, with made-up addresses, would also keep staff out: every sign-in would
 * wait behind it, or be refused. So checks for someone known (a browser that signed in to that
 * login before, a signed-in member confirming their password) have a line of their own, served
 * first: a flood without such a browser cannot fill it.
 */
const SCRYPT_AT_ONCE = 2;
const SCRYPT_WAITING_MAX = 64;
const KNOWN_WAITING_MAX = 16;
let running = 0;
const waiting: Array<() => void> = [];
const knownWaiting: Array<() => void> = [];

/** Too many password checks are already running or waiting: try again in a moment. */
const passwordWorkBusy = () =>
  new ServiceError("rate_limited", "Mari is busy checking other passwords. Try again in a few seconds.", undefined, { retryAfterSeconds: 2 });

/** Whose password is checked: someone known goes in the line served first. */
export type PasswordCheckFor = { known?: boolean };

async function scrypt(password: string, salt: Buffer, keylen: number, options: ScryptOptions, who: PasswordCheckFor = {}): Promise<Buffer> {
  if (running >= SCRYPT_AT_ONCE) {
    const line = who.known ? knownWaiting : waiting;
    if (line.length >= (who.known ? KNOWN_WAITING_MAX : SCRYPT_WAITING_MAX)) throw passwordWorkBusy();
    await new Promise<void>((resolve) => line.push(resolve));
  } else {
    running++;
  }
  try {
    return await new Promise<Buffer>((resolve, reject) => scryptCb(password, salt, keylen, options, (err, key) => (err ? reject(err) : resolve(key))));
  } finally {
    // The slot passes straight to the next in line, the known first, or is given up.
    const next = knownWaiting.shift() ?? waiting.shift();
    if (next) next();
    else running--;
  }
}

/** Tests: how many password checks run and wait now (the known ones' line apart). */
export function passwordWork(): { running: number; waiting: number; knownWaiting: number } {
  return { running, waiting: waiting.length, knownWaiting: knownWaiting.length };
}

// OWASP's scrypt floor: N=2^17, r=8, p=1 (128 MiB); maxmem must allow it.
const PARAMS = { N: 2 ** 17, r: 8, p: 1 };
const KEYLEN = 32;

/** Passwords people choose: long enough to resist guessing, short enough to hash (sign-in refuses longer). */
export const PASSWORD_MIN_LENGTH = 12;
export const PASSWORD_MAX_LENGTH = 1024;

/** A password Mari makes for someone (a new staff member, a reset, the first demo login): 96 random bits. */
export function generatePassword(): string {
  return randomBytes(12).toString("base64url");
}

/** Why a chosen password will not do, in words for the person choosing it, or null when it will. */
export function passwordProblem(password: string, email: string): string | null {
  const length = [...password.normalize("NFKC")].length;
  if (length < PASSWORD_MIN_LENGTH) return `Use at least ${PASSWORD_MIN_LENGTH} characters: a few unrelated words make a good one.`;
  if (password.length > PASSWORD_MAX_LENGTH) return `Use at most ${PASSWORD_MAX_LENGTH} characters.`;
  if (new Set(password).size < 4) return "Use more than a few different characters.";
  const lower = password.toLowerCase();
  const name = email.toLowerCase().split("@")[0] ?? "";
  if (lower === email.toLowerCase()) return "Do not use your e-mail address as your password.";
  if (name.length >= 4 && lower.includes(name)) return `Do not use the name of your e-mail address ("${name}") in your password.`;
  if (guessable(lower)) return "That password is among the first an attacker tries: use a few unrelated words instead.";
  return null;
}

/** Runs of keys people type for passwords: the alphabet, the digits, keyboard rows. */
const RUNS = ["abcdefghijklmnopqrstuvwxyz", "01234567890", "qwertyuiop", "asdfghjkl", "zxcvbnm", "1qaz2wsx3edc"];

/** Words that, with digits and symbols around them, make up most of the passwords attackers try first. */
const COMMON = new Set([
  "password", "passw0rd", "p@ssword", "p@ssw0rd", "letmein", "welcome", "admin", "administrator", "iloveyou", "monkey",
  "dragon", "football", "baseball", "soccer", "sunshine", "princess", "master", "shadow", "superman", "batman",
  "trustno1", "secret", "changeme", "default", "login", "qwerty", "abc", "test", "guest", "hello", "freedom",
  "whatever", "mari", "maripay", "payments", "ecocash", "onemoney", "telecash", "zimbabwe", "harare", "bulawayo",
]);

/**
 * A password made of nothing but digits, of one typed run (forwards or backwards, repeated), or
 * of a common word with digits and symbols around it: long enough, and guessed at once.
 */
function guessable(lower: string): boolean {
  if (/^[0-9\s]+$/.test(lower)) return true;
  const compact = lower.replace(/\s+/g, "");
  const counts = new Map<string, number>();
  for (const c of compact) counts.set(c, (counts.get(c) ?? 0) + 1);
  if (Math.max(...counts.values()) * 2 >= compact.length) return true;
  const inRun = (text: string) => RUNS.some((run) => run.includes(text) || [...run].reverse().join("").includes(text));
  // Split into chunks of up to 10 (a run's length): each chunk a piece of a run means it is all runs.
  const chunks = compact.match(/.{1,10}/g) ?? [];
  if (chunks.length > 0 && chunks.every((c) => inRun(c))) return true;
  const core = compact.replace(/^[^a-z@]+|[^a-z@]+$/g, "");
  return COMMON.has(core) || COMMON.has(core.replace(/[^a-z]/g, ""));
}

/** `scrypt$N$r$p$salt$hash`, so parameters can be raised later without breaking stored hashes. */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await scrypt(password.normalize("NFKC"), salt, KEYLEN, { ...PARAMS, maxmem: 256 * 1024 * 1024 });
  return ["scrypt", PARAMS.N, PARAMS.r, PARAMS.p, salt.toString("base64"), key.toString("base64")].join("$");
}

export async function verifyPassword(password: string, stored: string, who: PasswordCheckFor = {}): Promise<boolean> {
  const [algo, n, r, p, salt, hash] = stored.split("$");
  if (algo !== "scrypt" || !n || !r || !p || !salt || !hash) return false;
  const expected = Buffer.from(hash, "base64");
  const actual = await scrypt(
    password.normalize("NFKC"),
    Buffer.from(salt, "base64"),
    expected.length,
    { N: Number(n), r: Number(r), p: Number(p), maxmem: 256 * 1024 * 1024 },
    who,
  );
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}
