/**
 * npm run fuzz – hostile input against every /v1 operation of the production build on PostgreSQL.
 *
 * Each operation (and the methods and paths no operation serves) gets `--runs` requests (default
 * 1,000), every one of them wrong in a way the generator can name: bodies and queries derived from
 * the zod schemas and then broken at one place, and the hand-picked nasties (bad JSON, deep
 * nesting, 1 MB strings, numbers past every edge, wrong content types, odd unicode, odd
 * Idempotency-Keys, repeated query names). Every answer must be a 4xx in exactly the spec's error
 * envelope, and the database must show no row written for the fuzz merchant (see rows.ts for the
 * bookkeeping that may change). Prints a table per endpoint; on any failure, the seed and each
 * failing request, and exits 1.
 *
 *   npm run fuzz -- [--seed N] [--runs N] [--endpoint "POST /v1/payments"] [--case I] [--concurrency N]
 *
 * `FUZZ_SEED` or `--seed` reproduces a run exactly; `--endpoint` and `--case` narrow it to one
 * request. Environment: DATABASE_URL (default: database `mari_fuzz` on postgres://postgres@127.0.0.1:5432,
 * created when missing), FUZZ_PORT (default 3310), BENCH_BUILD=1 to rebuild.
 */
import { parseArgs } from "node:util";
import { randomUUID } from "node:crypto";
import { ensureBuild, npm, ROOT } from "../build";
import { connect, resolveDatabaseUrl } from "../db";
import { startServer, type Server } from "../server";
import { describeFailure, fuzz, table, type TargetResult } from "./core";
import type { RealIds } from "./requests";
import { sameSnapshot, snapshot, unexpectedWrites, type Answered, type Snapshot } from "./rows";

const FUZZ_DATABASE = "mari_fuzz";
const say = (s: string) => process.stderr.write(`[fuzz] ${s}\n`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

type Api = <T = Record<string, unknown>>(method: string, path: string, body?: unknown, headers?: Record<string, string>) => Promise<T>;

function client(baseUrl: string, key: string): Api {
  return async (method, path, body, headers = {}) => {
    const res = await fetch(`${baseUrl}${path}`, {
      method,
      headers: { authorization: `Bearer ${key}`, ...(body !== undefined ? { "content-type": "application/json" } : {}), ...headers },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    if (!res.ok) throw new Error(`${method} ${path} → ${res.status} ${text}`);
    return JSON.parse(text) as never;
  };
}

async function until<T>(what: string, read: () => Promise<T>, done: (v: T) => boolean, ms = 60_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await read();
    if (done(v)) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(500);
  }
}

/**
 * Real objects of every kind, made with valid requests before the fuzzing starts, so that wrong
 * requests also reach objects that exist (an update with a bad body must leave the endpoint as it
 * was). The webhook endpoint comes last and is disabled: nothing is ever delivered to it.
 */
async function makeObjects(api: Api): Promise<RealIds> {
  const idem = () => ({ "idempotency-key": randomUUID() });
  const payment = await api<{ id: string }>("POST", "/v1/payments", { amount: 5_000, currency: "USD", method: "wallet", reference: `fuzz-${randomUUID()}`, customer: { msisdn: "263770000001" } }, idem());
  await until("the payment to succeed", () => api<{ status: string }>("GET", `/v1/payments/${payment.id}`), (p) => p.status === "succeeded");
  const refund = await api<{ id: string }>("POST", "/v1/refunds", { payment: payment.id, amount: 1_000 }, idem());
  await until("the refund to settle", () => api<{ status: string }>("GET", `/v1/refunds/${refund.id}`), (r) => r.status !== "pending");
  const link = await api<{ id: string }>("POST", "/v1/payment_links", { amount: 2_000, currency: "USD", description: "fuzz" });
  const session = await api<{ id: string }>("POST", "/v1/checkout_sessions", { amount: 3_000, currency: "USD", reference: `fuzz-cs-${randomUUID()}`, success_url: "http://127.0.0.1:3319/done" });
  const settled = await api<{ data: { id: string }[] }>("POST", "/v1/test_helpers/settlements/run");
  for (const s of settled.data) await until("the test payout", () => api<{ status: string }>("GET", `/v1/settlements/${s.id}`), (b) => b.status !== "pending");
  const events = await api<{ data: { id: string }[] }>("GET", "/v1/events?limit=1");
  const endpoint = await api<{ id: string }>("POST", "/v1/webhook_endpoints", { url: "http://127.0.0.1:3319/fuzz-hook", enabled_events: ["*"] });
  await api("POST", `/v1/webhook_endpoints/${endpoint.id}`, { disabled: true });
  // A window replay of the last hour: with the only endpoint disabled, it queues nothing.
  const replay = await api<{ id: string }>("POST", "/v1/events/replay", { created_gte: new Date(Date.now() - 3_600_000).toISOString() });
  return {
    payment: payment.id,
    refund: refund.id,
    paymentLink: link.id,
    checkoutSession: session.id,
    settlement: settled.data[0]?.id,
    event: events.data[0]?.id,
    eventReplay: replay.id,
    webhookEndpoint: endpoint.id,
  };
}

/** The merchant's rows stop changing (the sandbox's callbacks, the test payout) before fuzzing starts. */
async function settle(take: () => Promise<Snapshot>): Promise<Snapshot> {
  let prev = await take();
  const deadline = Date.now() + 90_000;
  for (let quiet = 0; quiet < 3; ) {
    await sleep(1_500);
    const next = await take();
    quiet = sameSnapshot(prev, next) ? quiet + 1 : 0;
    prev = next;
    if (Date.now() > deadline) throw new Error("the fuzz merchant's rows kept changing for 90 s before fuzzing");
  }
  return prev;
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      seed: { type: "string" },
      runs: { type: "string", default: "1000" },
      endpoint: { type: "string" },
      case: { type: "string" },
      concurrency: { type: "string", default: "8" },
    },
    strict: true,
  });
  const seed = Number(values.seed ?? process.env.FUZZ_SEED ?? Math.floor(Math.random() * 2 ** 31));
  const runs = Number(values.runs);
  if (!Number.isSafeInteger(seed) || !Number.isSafeInteger(runs) || runs < 1) throw new Error("--seed and --runs must be whole numbers");
  const port = Number(process.env.FUZZ_PORT ?? 3310);
  say(`seed ${seed} (reproduce: FUZZ_SEED=${seed} npm run fuzz -- --runs ${runs})`);

  const url = await resolveDatabaseUrl(process.env.DATABASE_URL, FUZZ_DATABASE);
  const env: NodeJS.ProcessEnv = { ...process.env, DATABASE_URL: url, LOG_LEVEL: "error", BOOTSTRAP_DEMO: "false" };
  // Rate-limit counters stay in the server's memory: nothing of them in Redis or the database.
  delete env.REDIS_URL;
  npm(["db:migrate"], env);
  ensureBuild(env, say);
  const slug = `fuzz-${Date.now().toString(36)}`;
  const line = npm(["seed", "--", "--json", "--merchant", slug, "--restricted", "payments:read"], { ...env, LOG_LEVEL: "warn" })
    .split("\n")
    .find((l) => l.startsWith("{"));
  const seeded = JSON.parse(line ?? "null") as { merchant_id: string; keys: { test: string; restricted: string } } | null;
  if (!seeded) throw new Error("seed printed no JSON");
  say(`merchant ${slug} (${seeded.merchant_id})`);

  const sql = connect(url, 2);
  let server: Server | undefined;
  const stop = () => void (server?.stop() ?? Promise.resolve()).finally(() => process.exit(130));
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
  try {
    server = await startServer(ROOT, port, {
      ...env,
      NODE_ENV: "production",
      PUBLIC_BASE_URL: `http://127.0.0.1:${port}`,
      RATE_LIMIT_TEST_PER_SECOND: "1000000",
      RATE_LIMIT_LIVE_PER_SECOND: "1000000",
      WEBHOOK_ALLOW_PRIVATE_NETWORKS: "true",
    });
    say(`next start pid ${server.pid} on ${server.url}`);
    const ids = await makeObjects(client(server.url, seeded.keys.test));
    say(`real objects: ${Object.values(ids).join(", ")}`);
    const take = () => snapshot(sql, seeded.merchant_id);
    let before = await settle(take);

    const answered: Answered = new Map();
    const written = new Map<string, string>();
    const writeProblems: string[] = [];
    const started = Date.now();
    const results: TargetResult[] = await fuzz({
      baseUrl: server.url,
      keys: { key: seeded.keys.test, restricted: seeded.keys.restricted },
      ids,
      seed,
      runs,
      concurrency: Number(values.concurrency),
      only: values.endpoint,
      index: values.case !== undefined ? Number(values.case) : undefined,
      onAnswer(req, answer) {
        const key = req.headers["idempotency-key"];
        if (typeof key !== "string") return;
        const k = `test:${key.trim()}`;
        if (!answered.has(k)) answered.set(k, new Set());
        answered.get(k)!.add(answer.body);
      },
      around: {
        async after(target, r) {
          // A write made off the request path (after the answer) would land a moment later.
          await sleep(300);
          const after = await take();
          const bad = unexpectedWrites(before, after, answered);
          written.set(target.name, bad.length ? bad.join(", ") : "0");
          if (bad.length) writeProblems.push(`${target.name}: ${bad.join(", ")}`);
          before = after;
          say(`${target.name}: ${r.requests} requests, ${r.failures.length} failing, ${bad.length ? bad.join(", ") : "no rows written"}`);
        },
      },
    });
    const seconds = (Date.now() - started) / 1000;
    const total = results.reduce((s, r) => s + r.requests, 0);
    const failures = results.flatMap((r) => r.failures);
    process.stdout.write(`\n${table(results, written)}\n\n`);
    process.stdout.write(
      `${results.length} endpoints, ${total.toLocaleString("en")} requests in ${seconds.toFixed(1)} s (${(total / seconds).toFixed(0)}/s); ` +
        `${results.reduce((s, r) => s + r.serverErrors, 0)} 5xx, ${results.reduce((s, r) => s + r.envelopeViolations, 0)} envelope violations, ` +
        `${writeProblems.length} endpoints with rows written; seed ${seed}\n`,
    );
    if (failures.length > 0 || writeProblems.length > 0) {
      process.stdout.write(`\nFAILED (seed ${seed}); the first ${Math.min(20, failures.length)} of ${failures.length} failing requests:\n`);
      for (const f of failures.slice(0, 20)) {
        process.stdout.write(`${describeFailure(f)}\n    reproduce: FUZZ_SEED=${seed} npm run fuzz -- --runs ${runs} --endpoint "${f.target}" --case ${f.index}\n`);
      }
      for (const w of writeProblems) process.stdout.write(`  ✗ rows written: ${w}\n`);
      const errors = server.output().split("\n").filter((l) => /error/i.test(l)).slice(-20);
      if (errors.length) process.stdout.write(`\nserver log (last errors):\n${errors.join("\n")}\n`);
      process.exitCode = 1;
    }
  } finally {
    await server?.stop();
    await sql.end();
  }
}

main().catch((e: unknown) => {
  process.stderr.write(`fuzz failed: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
  process.exit(1);
});
