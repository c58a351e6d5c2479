/**
 * npm run seed -- --json [--merchant SLUG] [--restricted SCOPE,SCOPE] [--fee-bearer merchant|customer] [--new-password]
 * Creates the merchant if missing and fresh keys; prints exactly one JSON object on stdout.
 * `--fee-bearer` applies to a merchant this run creates (default merchant). `--new-password` gives
 * an existing admin a new password (printed; their sessions end), for a lost first-start login.
 * A flag it cannot use is refused on stderr (exit 1) before the database is opened.
 */
import { systemClock } from "@/server/clock";
import { seedMerchant } from "@/server/services/merchants/seed-merchant";
import { closeDb, getDb } from "./client";
import { parseSeedArgs, SEED_USAGE, SeedUsageError } from "./seed-options";

async function main(): Promise<void> {
  const options = parseSeedArgs(process.argv.slice(2));
  const db = await getDb();
  const { created, ...result } = await seedMerchant({ db, clock: systemClock }, {
    slug: options.slug,
    restrictedScopes: options.restrictedScopes,
    feeBearer: options.feeBearer,
    newPassword: options.newPassword,
  });
  if (options.json) {
    process.stdout.write(`${JSON.stringify(result)}\n`);
  } else {
    const out = [
      `${created ? "Created" : "Found"} merchant ${result.slug} (${result.merchant_id})`,
      `  staff      business ${result.slug}, ${result.staff.email}${result.staff.password ? ` / ${result.staff.password}` : " (password unchanged; --new-password for a new one)"}`,
      `  test key   ${result.keys.test}`,
      `  live key   ${result.keys.live}`,
      ...(result.keys.restricted ? [`  restricted ${result.keys.restricted}`] : []),
    ];
    process.stdout.write(`${out.join("\n")}\n`);
  }
  await closeDb();
}

main().catch(async (e: unknown) => {
  process.stderr.write(`seed failed: ${e instanceof Error ? e.message : String(e)}\n`);
  if (e instanceof SeedUsageError) process.stderr.write(`usage: ${SEED_USAGE}\n`);
  await closeDb().catch(() => {});
  process.exit(1);
});
