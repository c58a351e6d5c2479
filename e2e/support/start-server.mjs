#!/usr/bin/env node
/**
 * Playwright's webServer command: seeds a merchant, then serves the production build.
 *
 *   1. Database. With DATABASE_URL unset, a fresh embedded PGlite directory for this run only
 *      (`.data/e2e-<pid>`, removed on shutdown; leftovers of dead runs are swept). PGlite is
 *      single-process, so the seed must run and exit BEFORE the server opens the directory.
 *      With DATABASE_URL set, PostgreSQL is migrated (`npm run db:migrate`) and seeded in place.
 *   2. `npm run seed -- --json --merchant e2e-<stamp> --restricted payments:read`: a new
 *      merchant per run (so the staff password is always returned), its JSON written to
 *      E2E_SEED_FILE (default e2e/.auth/seed.json, gitignored) for the tests.
 *   3. `next start` on E2E_PORT (3100) with PUBLIC_BASE_URL=http://127.0.0.1:<port>; builds first
 *      only when .next/BUILD_ID is missing (set E2E_REBUILD=1 to force a fresh build).
 *
 * SIGTERM/SIGINT stop the server and remove the run's PGlite directory.
 */
import { spawn, spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import process from "node:process";
import { nextStartArgs } from "../../bench/next-start.mjs";

const root = path.resolve(import.meta.dirname, "../..");
const port = process.env.E2E_PORT ?? "3100";
const seedFile = path.resolve(root, process.env.E2E_SEED_FILE ?? "e2e/.auth/seed.json");
const baseUrl = `http://127.0.0.1:${port}`;
const npm = process.platform === "win32" ? "npm.cmd" : "npm";

function say(msg) {
  process.stderr.write(`[e2e server] ${msg}\n`);
}

let pgliteDir;

function cleanup() {
  if (pgliteDir) rmSync(pgliteDir, { recursive: true, force: true });
}

function fail(msg) {
  say(msg);
  cleanup();
  process.exit(1);
}

function run(cmd, args, env, { capture = false } = {}) {
  const r = spawnSync(cmd, args, { cwd: root, env, stdio: capture ? ["ignore", "pipe", "inherit"] : "inherit", encoding: "utf8" });
  if (r.status !== 0) fail(`${cmd} ${args.join(" ")} failed (exit ${r.status ?? r.signal})`);
  return r.stdout ?? "";
}

function pidAlive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return e.code === "EPERM";
  }
}

// Webhook receivers in the tests listen on 127.0.0.1.
// The push of …04 "times out": 3 s here instead of 8 keeps the hosted-page tests short.
// The dashboard's sessions are signed with a secret of this run's own, and three wrong passwords
// per address stop sign-in (e2e/dashboard/auth.spec.ts counts on it; each attempt costs a scrypt).
// The seeded test key is shared by every API spec file, two of which run at once: at the default
// 25 requests a second a burst of short tests spends the key's second and the next test meets a
// 429 it did not ask for. The limiter itself is tested in server/http/api-route.test.ts and the
// fuzzer's live key keeps the default of 100.
const env = {
  ...process.env,
  PUBLIC_BASE_URL: baseUrl,
  NODE_ENV: "production",
  WEBHOOK_ALLOW_PRIVATE_NETWORKS: "true",
  PROVIDER_PUSH_TIMEOUT_MS: "3000",
  NEXTAUTH_SECRET: process.env.NEXTAUTH_SECRET ?? randomBytes(32).toString("base64url"),
  SIGN_IN_ATTEMPTS_PER_15_MIN: "3",
  RATE_LIMIT_TEST_PER_SECOND: "1000",
};

if (!env.DATABASE_URL) {
  const dataDir = path.join(root, ".data");
  mkdirSync(dataDir, { recursive: true });
  // Sweep directories of earlier runs whose process is gone (only ours: e2e-<pid>).
  for (const name of readdirSync(dataDir)) {
    const m = /^e2e-(\d+)$/.exec(name);
    if (m && Number(m[1]) !== process.pid && !pidAlive(Number(m[1]))) rmSync(path.join(dataDir, name), { recursive: true, force: true });
  }
  pgliteDir = path.join(dataDir, `e2e-${process.pid}`);
  rmSync(pgliteDir, { recursive: true, force: true });
  env.PGLITE_DIR = pgliteDir;
  env.BOOTSTRAP_DEMO = "false";
  say(`embedded database ${path.relative(root, pgliteDir)}`);
} else {
  say("PostgreSQL from DATABASE_URL: migrating");
  run(npm, ["run", "--silent", "db:migrate"], env);
}

const slug = `e2e-${Date.now().toString(36)}`;
const seedOut = run(npm, ["run", "--silent", "seed", "--", "--json", "--merchant", slug, "--restricted", "payments:read"], { ...env, LOG_LEVEL: "warn" }, { capture: true });
const line = seedOut
  .split("\n")
  .map((l) => l.trim())
  .reverse()
  .find((l) => l.startsWith("{"));
let seed;
try {
  seed = JSON.parse(line ?? "");
} catch {
  fail(`seed printed no JSON object:\n${seedOut}`);
}
if (!seed?.keys?.test || !seed?.keys?.live) fail(`seed JSON lacks keys: ${line}`);
// A second merchant whose customers bear the fee: the hosted pages show the fee it adds.
const feeSeedOut = run(npm, ["run", "--silent", "seed", "--", "--json", "--merchant", `${slug}-fees`, "--fee-bearer", "customer"], { ...env, LOG_LEVEL: "warn" }, { capture: true });
const customerFee = JSON.parse(feeSeedOut.split("\n").map((l) => l.trim()).reverse().find((l) => l.startsWith("{")) ?? "null");
if (!customerFee?.keys?.test) fail(`seed (customer fee) printed no keys:\n${feeSeedOut}`);
mkdirSync(path.dirname(seedFile), { recursive: true });
writeFileSync(seedFile, `${JSON.stringify({ ...seed, customer_fee: customerFee, base_url: baseUrl }, null, 2)}\n`, { mode: 0o600 });
say(`seeded merchant ${seed.slug} (${seed.merchant_id}) → ${path.relative(root, seedFile)}`);

if (process.env.E2E_REBUILD === "1" || !existsSync(path.join(root, ".next", "BUILD_ID"))) {
  say("no production build (.next/BUILD_ID): running npm run build");
  run(npm, ["run", "build"], { ...process.env, NODE_ENV: "production" });
}

const server = spawn(process.execPath, nextStartArgs(root, port, "127.0.0.1"), { cwd: root, env, stdio: "inherit" });

let stopping = false;
for (const signal of ["SIGTERM", "SIGINT", "SIGHUP"]) {
  process.on(signal, () => {
    if (stopping) return;
    stopping = true;
    server.kill("SIGTERM");
    // next start exits within a second or two; do not wait forever.
    setTimeout(() => server.kill("SIGKILL"), 5_000).unref();
  });
}
server.on("exit", (code, signal) => {
  cleanup();
  if (!stopping) say(`next start exited (${code ?? signal})`);
  process.exit(stopping ? 0 : (code ?? 1));
});
