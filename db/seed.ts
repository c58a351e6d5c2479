/**
 * npm run seed -- --json [--merchant SLUG] [--restricted SCOPE,SCOPE] [--fee-bearer merchant|customer] [--new-password]
 * Creates the merchant if missing and fresh keys; prints exactly one JSON object on stdout.
 * `--fee-bearer` applies to a merchant this run creates (default merchant). `--new-password` gives
 * an existing admin a new password (printed; their sessions end), for a lost first-start login.
 */
import { parseArgs } from "node:util";
import { SCOPES, type Scope } from "@/server/domain/api-keys";
import { FEE_BEARERS, type FeeBearer } from "@/server/domain/fees";
import { systemClock } from "@/server/clock";
import { seedMerchant } from "@/server/services/merchants/seed-merchant";
import { closeDb, getDb } from "./client";

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      json: { type: "boolean", default: false },
      merchant: { type: "string", default: "demo" },
      restricted: { type: "string" },
      "fee-bearer": { type: "string" },
      "new-password": { type: "boolean", default: false },
    },
    strict: true,
  });
  const scopes = values.restricted?.split(",").map((s) => s.trim()).filter(Boolean);
  const unknown = scopes?.filter((s) => !(SCOPES as readonly string[]).includes(s)) ?? [];
  if (unknown.length > 0) throw new Error(`Unknown scope(s): ${unknown.join(", ")}. Known: ${SCOPES.join(", ")}`);

  const feeBearer = values["fee-bearer"];
  if (feeBearer !== undefined && !(FEE_BEARERS as readonly string[]).includes(feeBearer)) throw new Error(`--fee-bearer must be one of: ${FEE_BEARERS.join(", ")}`);

  const db = await getDb();
  const { created, ...result } = await seedMerchant({ db, clock: systemClock }, {
    slug: values.merchant,
    restrictedScopes: scopes as Scope[] | undefined,
    feeBearer: feeBearer as FeeBearer | undefined,
    newPassword: values["new-password"],
  });
  if (values.json) {
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
  await closeDb().catch(() => {});
  process.exit(1);
});
