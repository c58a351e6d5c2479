import { parseArgs } from "node:util";
import { SCOPES, type Scope } from "@/server/domain/api-keys";
import { FEE_BEARERS, type FeeBearer } from "@/server/domain/fees";
import { checkMerchantSlug } from "@/server/services/merchants/seed-merchant";

export const SEED_USAGE =
  "npm run seed -- [--json] [--merchant SLUG] [--restricted SCOPE,SCOPE] [--fee-bearer merchant|customer] [--new-password]";

/** What `npm run seed -- …` was asked for. */
export type SeedOptions = {
  json: boolean;
  slug: string;
  restrictedScopes?: Scope[];
  feeBearer?: FeeBearer;
  newPassword: boolean;
};

/** A command line the seed will not run: said on stderr with the usage, and nothing is written. */
export class SeedUsageError extends Error {}

/**
 * Reads the seed's flags, refusing anything it would otherwise have to guess at: a flag it does
 * not know, a value it cannot use. Called before the database is opened, so a typo creates no
 * embedded database and no merchant, and prints nothing on stdout that a script could take for
 * keys.
 */
export function parseSeedArgs(args: readonly string[]): SeedOptions {
  const { values } = readFlags(args);
  try {
    checkMerchantSlug(values.merchant);
  } catch (e) {
    throw new SeedUsageError((e as Error).message);
  }
  return {
    json: values.json,
    slug: values.merchant,
    restrictedScopes: values.restricted === undefined ? undefined : scopeList(values.restricted),
    feeBearer: values["fee-bearer"] === undefined ? undefined : feeBearer(values["fee-bearer"]),
    newPassword: values["new-password"],
  };
}

function readFlags(args: readonly string[]) {
  try {
    return parseArgs({
      args: [...args],
      options: {
        json: { type: "boolean", default: false },
        merchant: { type: "string", default: "demo" },
        restricted: { type: "string" },
        "fee-bearer": { type: "string" },
        "new-password": { type: "boolean", default: false },
      },
      strict: true,
      allowPositionals: false,
    });
  } catch (e) {
    // node:util's messages name the flag ("Unknown option '--merchnat'").
    throw new SeedUsageError((e as Error).message);
  }
}

/**
 * `--restricted ""` (or a list with a gap, `payments:read,,refunds:write`) is refused rather than
 * read as fewer scopes: it issued no restricted key without a word, and a script went on without one.
 */
function scopeList(list: string): Scope[] {
  const scopes = list.split(",").map((s) => s.trim());
  if (scopes.some((s) => s === "")) {
    throw new SeedUsageError(`--restricted takes one or more scopes separated by commas, such as payments:read,refunds:write (got '${list}').`);
  }
  const unknown = scopes.filter((s) => !(SCOPES as readonly string[]).includes(s));
  if (unknown.length > 0) throw new SeedUsageError(`Unknown scope(s): ${unknown.join(", ")}. Known: ${SCOPES.join(", ")}`);
  return scopes as Scope[];
}

function feeBearer(value: string): FeeBearer {
  if (!(FEE_BEARERS as readonly string[]).includes(value)) throw new SeedUsageError(`--fee-bearer must be one of: ${FEE_BEARERS.join(", ")} (got '${value}').`);
  return value as FeeBearer;
}
