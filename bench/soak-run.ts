/**
 * npm run bench:soak – the sustained mixed load of `npm run bench` on its own (bench/soak.ts):
 * about 13 minutes with the default 10-minute soak.
 *
 * Migrates, builds when the build is stale, seeds the `bench-soak` merchant, serves the production
 * build with `next start` (LOG_LEVEL=warn, per-key limits raised, webhooks to 127.0.0.1 allowed,
 * the sandbox at its normal speed), runs the soak and prints its rows and per-window series.
 * A missed target is a result, not an error: the exit code is non-zero only when the run fails.
 *
 * Environment (all optional):
 *   DATABASE_URL          PostgreSQL to use; default database `mari_bench` on postgres://postgres@127.0.0.1:5432 (created)
 *   BENCH_SOAK_SECONDS    soak length (default 600; e.g. 60 for a try)
 *   BENCH_SOAK_BASELINE   seconds of the unloaded baseline (default 60, up to 180 at a low rate, for 600 answers)
 *   BENCH_SOAK_MAX        seconds of the closed-loop maximum (default 20)
 *   BENCH_SOAK_CONNECTIONS  connections of the closed-loop maximum (default 16)
 *   BENCH_SOAK_RATE       soak at this many requests a second instead of 70 % of the maximum (to compare two builds at one load)
 *   BENCH_SOAK_PORT       port for next start (default 3330)
 *   BENCH_QUIET_WAIT      longest wait, in seconds, for other work on the machine to calm down before a phase (default 120)
 *   BENCH_POOL_MAX        DATABASE_POOL_MAX for the server under test (default: the app's own default)
 *   BENCH_BUILD=1         rebuild even when the build looks current
 */
import { mkdirSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { ensureBuild, npm, ROOT, seed } from "./build";
import { connect, resolveDatabaseUrl } from "./db";
import { cpuLines, table } from "./report";
import { nodeVersions, type Server } from "./server";
import { runSoak, startSoakServer } from "./soak";

const PORT = Number(process.env.BENCH_SOAK_PORT ?? 3330);

const say = (s: string) => process.stderr.write(`[bench:soak] ${s}\n`);
const num = (name: string, fallback: number) => (process.env[name] ? Number(process.env[name]) : fallback);

async function main(): Promise<void> {
  const databaseUrl = await resolveDatabaseUrl(process.env.DATABASE_URL);
  const env: NodeJS.ProcessEnv = { ...process.env, DATABASE_URL: databaseUrl, LOG_LEVEL: "warn", BOOTSTRAP_DEMO: "false" };
  // Rate-limit counters stay in memory, as in `npm run bench`.
  delete env.REDIS_URL;
  const poolMax = process.env.BENCH_POOL_MAX;
  if (poolMax) env.DATABASE_POOL_MAX = poolMax;
  say(`database ${databaseUrl.replace(/\/\/([^:@/]+):[^@]*@/, "//$1:***@")}`);
  npm(["db:migrate"], env);
  ensureBuild(env, say);
  const merchant = seed("bench-soak", env);

  const sql = connect(databaseUrl, 1);
  const holder: { server?: Server } = {};
  const onSignal = () => {
    void (holder.server?.stop() ?? Promise.resolve()).finally(() => process.exit(130));
  };
  process.once("SIGINT", onSignal);
  process.once("SIGTERM", onSignal);
  try {
    const [pg] = await sql<{ version: string; shared_buffers: string }[]>`
      select current_setting('server_version') as version, current_setting('shared_buffers') as shared_buffers`;
    const { server, callbackSecret } = await startSoakServer(PORT, env);
    holder.server = server;
    say(`next start pid ${server.pid} on ${server.url}`);
    const report = await runSoak({
      server,
      callbackSecret,
      sql,
      merchant,
      say,
      seconds: num("BENCH_SOAK_SECONDS", 600),
      baselineSeconds: process.env.BENCH_SOAK_BASELINE ? Number(process.env.BENCH_SOAK_BASELINE) : undefined,
      maxSeconds: num("BENCH_SOAK_MAX", 20),
      connections: num("BENCH_SOAK_CONNECTIONS", 16),
      quietWaitSeconds: num("BENCH_QUIET_WAIT", 120),
      rate: process.env.BENCH_SOAK_RATE ? Number(process.env.BENCH_SOAK_RATE) : undefined,
    });

    const cpus = os.cpus();
    const output = [
      `date        ${new Date().toISOString()}`,
      `machine     ${cpus.length} cores (${cpus[0]?.model ?? "?"}), ${(os.totalmem() / 2 ** 30).toFixed(0)} GB RAM; the load generator, next start and PostgreSQL share these cores`,
      `node        ${nodeVersions()}; next start (production build), DATABASE_POOL_MAX=${poolMax ?? "app default"}`,
      `postgresql  ${pg!.version} (shared_buffers ${pg!.shared_buffers})`,
      "",
      table(report.rows),
      "",
      ...report.lines,
      ...cpuLines(report.rows.slice(0, 3), cpus.length),
    ];
    const judged = report.rows.filter((r) => r.pass !== null);
    output.push("", `${judged.filter((r) => r.pass).length}/${judged.length} targets met`);
    process.stdout.write(`\n${output.join("\n")}\n`);

    const dir = path.join(ROOT, "bench", "results");
    mkdirSync(dir, { recursive: true });
    const stamp = `soak-${new Date().toISOString().replace(/[:.]/g, "-")}`;
    const rows = report.rows.map(({ phase, r, ratio, target, pass }) => ({ phase, ...r, ratio, target, pass }));
    writeFileSync(path.join(dir, `${stamp}.json`), `${JSON.stringify({ rows, ...report.details }, null, 2)}\n`);
    writeFileSync(path.join(dir, `${stamp}.md`), `${output.join("\n")}\n`);
    say(`details in bench/results/${stamp}.json`);
  } finally {
    await holder.server?.stop();
    await sql.end();
    process.off("SIGINT", onSignal);
    process.off("SIGTERM", onSignal);
  }
}

main().catch((e: unknown) => {
  process.stderr.write(`bench:soak failed: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
  process.exit(1);
});
