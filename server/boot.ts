import { count } from "drizzle-orm";
import { getDb, type Db } from "@/db/client";
import { merchants } from "@/db/schema";
import { authSecret } from "./auth/secret";
import { systemClock } from "./clock";
import { env } from "./env";
import { startBackgroundWork } from "./jobs/runtime";
import { log } from "./log";
import { checkHealth } from "./services/health";
import { seedMerchant, type SeedResult } from "./services/merchants/seed-merchant";
import { dataKeyOpensStoredSecrets, sealStoredSecrets } from "./services/webhooks/seal-stored-secrets";

/**
 * Runs once per server process (instrumentation.ts). On the embedded default it opens and
 * migrates the database and, on the very first start, creates the demo merchant and prints its
 * credentials: the only time the staff password is ever shown.
 */
export async function boot(): Promise<void> {
  const db = await getDb();
  // PostgreSQL may not answer yet (starting too, or restarting). Thrown from here, the error would
  // leave Next answering every request 500 until the process was restarted; instead the server
  // comes up, /api/health answers 503, and starting finishes once the database answers.
  if (!env().embedded && (await checkHealth()).database !== "ok") {
    log.error("the database does not answer: serving 503 on /api/health, and starting when it answers");
    void startWhenDatabaseAnswers(db);
    return;
  }
  await start(db);
}

async function startWhenDatabaseAnswers(db: Db): Promise<void> {
  for (let wait = 500; ; wait = Math.min(wait * 2, 10_000)) {
    await new Promise((resolve) => setTimeout(resolve, wait));
    if ((await checkHealth()).database !== "ok") continue;
    try {
      await start(db);
      log.info("the database answers: started");
      return;
    } catch (e) {
      log.error("starting failed; trying again", { error: e });
    }
  }
}

async function start(db: Db): Promise<void> {
  if (!(await dataKeyOpensStoredSecrets(db))) {
    throw new Error(
      "The data key does not open the webhook signing secrets stored in this database: they were sealed with another key. " +
        "Start with the DATA_ENCRYPTION_KEY they were sealed with (the same on every instance; on the embedded database, the .data/data-key file beside it).",
    );
  }
  const sealed = await sealStoredSecrets(db);
  if (sealed > 0) log.info("sealed webhook signing secrets stored in plain text", { endpoints: sealed });
  startBackgroundWork(db);
  if (authSecret() === null) {
    log.warn("NEXTAUTH_SECRET is not set: the API serves, but the dashboard signs no one in until it is (32+ characters, the same on every instance)");
  }
  if (!env().BOOTSTRAP_DEMO) return;
  // Any merchant means the first start's seed committed: it writes the merchant, its admin and its
  // keys in one transaction, so a start that died while seeding left none, and this one seeds again.
  const [row] = await db.select({ n: count() }).from(merchants);
  if ((row?.n ?? 0) > 0) return;
  // Shown before the seed commits: a start killed in between leaves nothing, and the next one seeds and shows again.
  const demo = await seedMerchant({ db, clock: systemClock }, { slug: "demo", show: (seeded) => (seeded.created ? writeOut(firstStartBanner(seeded)) : undefined) });
  if (!demo.created) return;
  log.info("demo merchant created", { merchant: demo.merchant_id });
}

/** What the first start prints: the demo merchant's login and a test key, the only time the password is shown. */
function firstStartBanner(demo: SeedResult): string {
  const base = env().PUBLIC_BASE_URL;
  return [
    "",
    "  Mari is ready. Demo merchant created (shown once, keep it):",
    `    API docs    ${base}/v1/openapi.json`,
    `    dashboard   ${base}/dashboard/sign-in?business=${demo.slug}`,
    `    staff       business ${demo.slug}, ${demo.staff.email} / ${demo.staff.password ?? "(already set)"}`,
    `    test key    ${demo.keys.test}`,
    "",
    `  curl ${base}/v1/payments -u ${demo.keys.test}:`,
    "",
    "",
  ].join("\n");
}

/**
 * Writes to stdout and resolves once Node has handed the text to the operating system: a password
 * shown before its transaction commits is out of the process by then, whatever happens next.
 */
function writeOut(text: string): Promise<void> {
  return new Promise((resolve, reject) => process.stdout.write(text, (e) => (e ? reject(e) : resolve())));
}
