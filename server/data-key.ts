import { randomBytes } from "node:crypto";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { DATA_KEY_BYTES, parseDataKey } from "@/server/domain/sealing";
import { env } from "@/server/env";
import { log } from "@/server/log";

let cached: Buffer | undefined;

/**
 * The key that seals stored secrets (server/domain/sealing.ts): DATA_ENCRYPTION_KEY, or one made
 * on first use and kept in `.data/data-key` beside the embedded database (mode 0600). Instances
 * sharing a PostgreSQL database must share the key, so with DATABASE_URL set and no
 * DATA_ENCRYPTION_KEY the file is still used, with a warning: fine for one machine, wrong for two.
 */
export function dataKey(): Buffer {
  if (cached) return cached;
  const { DATA_ENCRYPTION_KEY, embedded, PGLITE_DIR } = env();
  if (DATA_ENCRYPTION_KEY) return (cached = parseDataKey(DATA_ENCRYPTION_KEY)!);
  const file = path.join(path.dirname(path.resolve(PGLITE_DIR)), "data-key");
  if (!embedded) log.warn("DATA_ENCRYPTION_KEY is not set: stored secrets are sealed with a key file on this machine only", { file });
  try {
    const existing = parseDataKey(readFileSync(file, "utf8"));
    if (existing) return (cached = existing);
  } catch {
    // First use: make it below.
  }
  mkdirSync(path.dirname(file), { recursive: true });
  const made = randomBytes(DATA_KEY_BYTES);
  // `wx`: two processes making it at once must not each keep a different key.
  try {
    writeFileSync(file, `${made.toString("base64url")}\n`, { mode: 0o600, flag: "wx" });
    return (cached = made);
  } catch {
    const theirs = parseDataKey(readFileSync(file, "utf8"));
    if (!theirs) throw new Error(`${file} does not hold a 32-byte key: remove it, or set DATA_ENCRYPTION_KEY`);
    return (cached = theirs);
  }
}
