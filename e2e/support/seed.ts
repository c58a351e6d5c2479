import { readFileSync } from "node:fs";
import path from "node:path";

/** What e2e/support/start-server.mjs wrote after `npm run seed -- --json` (plus the server's origin). */
export type Seed = {
  merchant_id: string;
  slug: string;
  staff: { email: string; password?: string };
  keys: { test: string; live: string; restricted?: string };
  /** A second merchant whose customers bear the fee. */
  customer_fee: { merchant_id: string; slug: string; keys: { test: string; live: string } };
  base_url: string;
};

let cached: Seed | undefined;

export function seed(): Seed {
  if (cached) return cached;
  const file = path.resolve(process.env.E2E_SEED_FILE ?? "e2e/.auth/seed.json");
  try {
    cached = JSON.parse(readFileSync(file, "utf8")) as Seed;
  } catch (e) {
    throw new Error(`No seed file at ${file}: the e2e web server (e2e/support/start-server.mjs) writes it on start. ${String(e)}`);
  }
  return cached;
}

export const bearer = (key: string) => ({ Authorization: `Bearer ${key}` });

/** `curl -u sk_test_…:`: the key as the Basic user name, empty password. */
export const basic = (key: string) => ({ Authorization: `Basic ${Buffer.from(`${key}:`).toString("base64")}` });
