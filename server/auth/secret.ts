import { randomBytes } from "node:crypto";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { env } from "@/server/env";

let cached: string | null | undefined;

/**
 * The key that signs dashboard sessions: NEXTAUTH_SECRET, or on the embedded default one made on
 * first use and kept beside the database (so a restart keeps everyone signed in). Null when
 * PostgreSQL is configured without NEXTAUTH_SECRET: instances must share the secret, so none is
 * invented.
 */
export function authSecret(): string | null {
  if (cached !== undefined) return cached;
  const { NEXTAUTH_SECRET, embedded, PGLITE_DIR } = env();
  if (NEXTAUTH_SECRET) return (cached = NEXTAUTH_SECRET);
  if (!embedded) return (cached = null);
  const file = path.join(path.dirname(path.resolve(PGLITE_DIR)), "auth-secret");
  try {
    cached = readFileSync(file, "utf8").trim();
    if (cached.length >= 32) return cached;
  } catch {
    // First start: make it below.
  }
  mkdirSync(path.dirname(file), { recursive: true });
  cached = randomBytes(32).toString("base64url");
  writeFileSync(file, `${cached}\n`, { mode: 0o600 });
  return cached;
}

/**
 * Whether the dashboard's cookies are `Secure` (and named with the `__Secure-` prefix): whenever
 * the site is served over https, as PUBLIC_BASE_URL says. next-auth would decide from NEXTAUTH_URL,
 * which this service does not need set. Over plain http (a local run) a browser would drop them.
 */
export function secureCookies(): boolean {
  return env().PUBLIC_BASE_URL.startsWith("https://");
}
