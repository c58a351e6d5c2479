import type { Sql } from "postgres";
import type { ServiceContext } from "@/server/context";
import { npm, seed } from "./build";
import { connect, resolveDatabaseUrl } from "./db";

/**
 * For scripts that time a service called in their own process: DATABASE_URL, or `database` on
 * the local server (made when missing), migrated, with a merchant `slug` seeded, and the test-mode
 * context its services are called with. The service modules read their configuration when first
 * loaded, so they are loaded here, after it is set, and callers import services dynamically too.
 */
async function inProcessService(slug: string, database: string): Promise<{ databaseUrl: string; merchantId: string; ctx: ServiceContext }> {
  const databaseUrl = await resolveDatabaseUrl(process.env.DATABASE_URL, database);
  const env: NodeJS.ProcessEnv = { ...process.env, DATABASE_URL: databaseUrl, LOG_LEVEL: "warn", BOOTSTRAP_DEMO: "false" };
  npm(["db:migrate"], env);
  const merchantId = seed(slug, env).merchant_id;
  process.env.DATABASE_URL = databaseUrl;
  process.env.LOG_LEVEL = "warn";
  const { getDb } = await import("@/db/client");
  const { merchants } = await import("@/db/schema");
  const { eq } = await import("drizzle-orm");
  const { systemClock } = await import("@/server/clock");
  const { providers } = await import("@/server/providers/registry");
  const db = await getDb();
  const [merchant] = await db.select().from(merchants).where(eq(merchants.id, merchantId));
  const ctx: ServiceContext = { db, clock: systemClock, providers, merchant: merchant!, livemode: false, actor: { type: "system", job: "bench" } };
  return { databaseUrl, merchantId, ctx };
}

/**
 * Runs a script's `body` with the service above and a connection of its own for the script's SQL
 * (`sql`, ended after), then exits: 0, or 1 with the error printed.
 */
export function runInProcess(
  slug: string,
  database: string,
  body: (run: { merchantId: string; ctx: ServiceContext; sql: Sql }) => Promise<void>,
): void {
  const main = async () => {
    const { databaseUrl, merchantId, ctx } = await inProcessService(slug, database);
    const sql = connect(databaseUrl, 1);
    try {
      await body({ merchantId, ctx, sql });
    } finally {
      await sql.end();
    }
  };
  void main().then(
    () => process.exit(0),
    (e: unknown) => {
      console.error(e);
      process.exit(1);
    },
  );
}
