import { randomBytes } from "node:crypto";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { env, type Env } from "@/server/env";

/** The secret, for the configuration it was read under (a changed configuration reads it again). */
let cached: { for: Env; secret: string | null } | undefined;

/**
 * The key that signs dashboard sessions: NEXTAUTH_SECRET, or on the embedded default one made on
 * first use and kept beside the database (so a restart keeps everyone signed in). Null when
 * PostgreSQL is configured without NEXTAUTH_SECRET: instances must share the secret, so none is
 * invented.
 */
export function authSecret(): string | null {
  const config = env();
  if (cached?.for !== config) cached = { for: config, secret: readAuthSecret(config) };
  return cached.secret;
}

function readAuthSecret({ NEXTAUTH_SECRET, embedded, PGLITE_DIR }: Env): string | null {
  if (NEXTAUTH_SECRET) return NEXTAUTH_SECRET;
  if (!embedded) return null;
  const file = path.join(path.dirname(path.resolve(PGLITE_DIR)), "auth-secret");
  try {
    const kept = readFileSync(file, "utf8").trim();
    if (kept.length >= 32) return kept;
  } catch {
    // First start: make it below.
  }
  mkdirSync(path.dirname(file), { recursive: true });
  const made = randomBytes(32).toString("base64url");
  writeFileSync(file, `${made}\n`, { mode: 0o600 });
  return made;
}

/**
 * Whether the dashboard's cookies are `Secure` (and named with the `__Secure-` prefix): whenever
 * the site is served over https, as PUBLIC_BASE_URL says. next-auth would decide from NEXTAUTH_URL,
 * which this service does not need set. Over plain http (a local run) a browser would drop them.
 */
export function secureCookies(): boolean {
  return env().PUBLIC_BASE_URL.startsWith("https://");
}
