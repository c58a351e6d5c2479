/** npm run db:migrate – applies the committed migrations to DATABASE_URL (or the embedded database). */
import { closeDb, driver, migrateDatabase } from "./client";

async function main(): Promise<void> {
  await migrateDatabase();
  process.stdout.write(`migrations applied (${await driver()})\n`);
  await closeDb();
}

main().catch(async (e: unknown) => {
  process.stderr.write(`migration failed: ${e instanceof Error ? e.message : String(e)}\n`);
  await closeDb().catch(() => {});
  process.exit(1);
});
