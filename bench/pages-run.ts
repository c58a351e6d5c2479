/**
 * npm run bench:pages – the hosted pages' speed budget, on its own (a minute or two).
 *
 * Serves the production build with `next start` on port 3300, makes a payment link and a checkout
 * session, and measures /pay/{id} and /checkout/{id} against the empty baseline page /bench/empty
 * (see bench/pages.ts). The pay page is judged: first-load JS ≤ 1.15× the baseline (transferred
 * bytes) and median LCP ≤ 2.0 s; the checkout page is shown against the same budgets.
 * A missed budget is a result, not an error: the exit code is non-zero only when the run fails.
 *
 * Database: DATABASE_URL when set (migrated, then a `bench-pages` merchant seeded); otherwise a
 * fresh embedded PGlite directory .data/bench-pages-<pid>, seeded before the server opens it
 * (PGlite is single-process) and removed afterwards.
 *
 * Options:
 *   --runs N               cold loads per page (default 5)
 *   --pay-path PATH        measure PATH in place of /pay/{link} (e.g. `/` while that page is missing)
 *   --checkout-path PATH   the same for /checkout/{session}
 * Environment: CHROMIUM_PATH (default /usr/bin/chromium when present), BENCH_BUILD=1 to rebuild.
 */
import { mkdirSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { processAlive } from "../db/data-dir-lock";
import { ensureBuild, npm, ROOT, seed } from "./build";
import { createHostedPages, JS_RATIO_BUDGET, kB, LCP_BUDGET_MS, measurePages, pageNotes, type PageResult, type PagesReport } from "./pages";
import { startServer, type Server } from "./server";

const PORT = 3300;
const BASELINE_PATH = "/bench/empty";

const say = (s: string) => process.stderr.write(`[bench:pages] ${s}\n`);

/** A fresh PGlite directory for this run; those left by runs whose process is gone are swept. */
function freshPgliteDir(): string {
  const dataDir = path.join(ROOT, ".data");
  mkdirSync(dataDir, { recursive: true });
  for (const name of readdirSync(dataDir)) {
    const m = /^bench-pages-(\d+)$/.exec(name);
    if (m && Number(m[1]) !== process.pid && !processAlive(Number(m[1]))) rmSync(path.join(dataDir, name), { recursive: true, force: true });
  }
  const dir = path.join(dataDir, `bench-pages-${process.pid}`);
  rmSync(dir, { recursive: true, force: true });
  return dir;
}

const sec = (ms: number | null) => (ms === null ? "–" : `${(ms / 1000).toFixed(2)} s`);
const x = (v: number) => `${v.toFixed(2)}×`;

/** The budget outcome for a page: judged pages PASS/FAIL, the others say what they would be. */
function verdict(met: boolean, judged: boolean, p: PageResult): string {
  if (p.unavailable) return judged ? "FAIL (unavailable)" : "unavailable";
  if (judged) return met ? "PASS" : "FAIL";
  return met ? "within (not judged)" : "over (not judged)";
}

function pagesTable(report: PagesReport, judged: Set<string>): string {
  const head = ["page", "LCP median", "LCP max", "JS transferred", "JS decoded", "scripts", "× empty (transferred / decoded)", `JS ≤ ${JS_RATIO_BUDGET}×`, `LCP ≤ ${LCP_BUDGET_MS / 1000} s`];
  const row = (p: PageResult, base: boolean): string[] => [
    `${p.name} ${p.path}`,
    p.unavailable ? "–" : sec(p.lcpMedian),
    p.unavailable ? "–" : sec(p.lcpMax),
    p.unavailable ? "–" : kB(p.js.transferred),
    p.unavailable ? "–" : kB(p.js.decoded),
    p.unavailable ? "–" : String(p.js.scripts),
    base ? "1.00× / 1.00×" : p.ratio ? `${x(p.ratio.transferred)} / ${x(p.ratio.decoded)}` : "–",
    base ? "baseline" : verdict(p.meets.js, judged.has(p.name), p),
    base ? "–" : verdict(p.meets.lcp, judged.has(p.name), p),
  ];
  const body = [row(report.baseline, true), ...report.pages.map((p) => row(p, false))];
  const numeric = (i: number) => i >= 1 && i <= 5;
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((b) => b[i]!.length)));
  const line = (cells: string[]) => `| ${cells.map((c, i) => (numeric(i) ? c.padStart(widths[i]!) : c.padEnd(widths[i]!))).join(" | ")} |`;
  const rule = `|${widths.map((w, i) => (numeric(i) ? `${"-".repeat(w + 1)}:` : "-".repeat(w + 2))).join("|")}|`;
  return [line(head), rule, ...body.map(line)].join("\n");
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      runs: { type: "string", default: "5" },
      "pay-path": { type: "string" },
      "checkout-path": { type: "string" },
    },
    strict: true,
  });
  const runs = Number(values.runs);
  if (!Number.isInteger(runs) || runs < 1) throw new Error("--runs must be a positive integer");

  const env: NodeJS.ProcessEnv = { ...process.env, LOG_LEVEL: "warn", BOOTSTRAP_DEMO: "false" };
  // Rate-limit counters stay in memory, as in `npm run bench`.
  delete env.REDIS_URL;
  let pgliteDir: string | undefined;
  if (env.DATABASE_URL) {
    say("PostgreSQL from DATABASE_URL: migrating");
    npm(["db:migrate"], env);
  } else {
    pgliteDir = freshPgliteDir();
    env.PGLITE_DIR = pgliteDir;
    say(`embedded database ${path.relative(ROOT, pgliteDir)}`);
  }

  const holder: { server?: Server } = {};
  const cleanup = async () => {
    await holder.server?.stop();
    if (pgliteDir) rmSync(pgliteDir, { recursive: true, force: true });
  };
  const onSignal = () => {
    void cleanup().finally(() => process.exit(130));
  };
  process.once("SIGINT", onSignal);
  process.once("SIGTERM", onSignal);

  try {
    ensureBuild(env, say);
    // PGlite is one process: the seed opens the directory, migrates it and exits before the server opens it.
    const merchant = seed("bench-pages", env);
    const baseUrl = `http://127.0.0.1:${PORT}`;
    const server = await startServer(ROOT, PORT, { ...env, NODE_ENV: "production", PUBLIC_BASE_URL: baseUrl });
    holder.server = server;
    say(`next start pid ${server.pid} on ${server.url}`);

    const { linkId, sessionId } = await createHostedPages(server.url, merchant.keys.test);
    say(`payment link ${linkId}, checkout session ${sessionId}`);
    const pages = [
      { name: "pay", path: values["pay-path"] ?? `/pay/${linkId}` },
      { name: "checkout", path: values["checkout-path"] ?? `/checkout/${sessionId}` },
    ];
    const report = await measurePages({ baseUrl: server.url, pages, baselinePath: BASELINE_PATH, runs, log: say });

    const judged = new Set(["pay"]);
    const pay = report.pages.find((p) => p.name === "pay")!;
    const met = [pay.meets.js, pay.meets.lcp].filter(Boolean).length;
    const cpus = os.cpus();
    const output = [
      `date        ${new Date().toISOString()}`,
      `machine     ${cpus.length} cores (${cpus[0]?.model ?? "?"}); next start (production build), ${env.DATABASE_URL ? "PostgreSQL" : "embedded PGlite"}`,
      `browser     ${report.browser}`,
      `conditions  ${report.conditions}`,
      "",
      pagesTable(report, judged),
      "",
      ...pageNotes(report),
      "",
      `${met}/2 budgets met (the pay page; the checkout page is shown against the same budgets, not judged)`,
    ];
    process.stdout.write(`\n${output.join("\n")}\n`);

    const dir = path.join(ROOT, "bench", "results");
    mkdirSync(dir, { recursive: true });
    const stamp = `pages-${new Date().toISOString().replace(/[:.]/g, "-")}`;
    writeFileSync(path.join(dir, `${stamp}.json`), `${JSON.stringify({ budgets: { jsRatio: JS_RATIO_BUDGET, lcpMs: LCP_BUDGET_MS }, met, judged: 2, ...report }, null, 2)}\n`);
    writeFileSync(path.join(dir, `${stamp}.md`), `${output.join("\n")}\n`);
    say(`details in bench/results/${stamp}.json`);
  } finally {
    await cleanup();
    process.off("SIGINT", onSignal);
    process.off("SIGTERM", onSignal);
  }
}

main().catch((e: unknown) => {
  process.stderr.write(`bench:pages failed: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
  process.exit(1);
});
