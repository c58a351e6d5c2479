/**
 * npm run bench – throughput and latency of the production build against PostgreSQL.
 *
 * Reads, 10 connections, on a merchant with 1,000,000 payments: the first page, the page after
 * payment #500,000 (keyset cursor) and a reference search. Writes, 50 connections: the framework
 * floor (a Next route doing one INSERT), payment create, and idempotent replay, which must write
 * nothing (checked with table statistics and the WAL). Then timers, webhooks, and the hosted pages'
 * speed budget (bench/pages.ts: LCP and first-load JS of /pay/{id}, and /checkout/{id} shown, in
 * Chromium with Slow 4G and a 4× CPU slowdown), and last the sustained mixed load (bench/soak.ts)
 * on a second server whose sandbox answers at its normal speed. Prints one table; BENCHMARKS.md explains it.
 *
 * The machine is shared and small, so phases that are compared are interleaved (A, B, A, B, …) and
 * every phase reports how much CPU went to processes outside the benchmark.
 *
 * Environment (all optional):
 *   DATABASE_URL    PostgreSQL to use; default database `mari_bench` on postgres://postgres@127.0.0.1:5432 (created)
 *   BENCH_SECONDS   measured seconds per phase (default 12), split into BENCH_ROUNDS rounds (default 3)
 *   BENCH_WARMUP    warm-up seconds per phase (default 4)
 *   BENCH_ROWS      payments in the list dataset (default 1000000)
 *   BENCH_POOL_MAX  DATABASE_POOL_MAX for the server under test (default: the app's own default)
 *   BENCH_QUIET_WAIT  longest wait, in seconds, for other work on the machine to calm down before a phase (default 120)
 *   BENCH_BUILD=1   rebuild even when the build looks current
 *   BENCH_PAGE_RUNS cold loads per hosted page (default 5)
 *   BENCH_PORT      port for next start (default 3200)
 *   BENCH_SOAK_SECONDS  length of the sustained mixed load (default 600; 0 leaves it out)
 *   BENCH_TIMERS    expiries in the timers phase (default 10000; at least 1: the phase is always run)
 *   BENCH_WEBHOOK_EVENTS  events in each webhook phase (default 5000; at least 1)
 *   CHROMIUM_PATH   the browser for the page budget (default /usr/bin/chromium when present, else Playwright's own)
 */
import { randomBytes } from "node:crypto";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import type { RequestSpec } from "autocannon";
import type { Sql } from "postgres";
import { FLOOR_TABLE_DDL } from "@/server/bench/floor";
import { bareClient, commitBurst, deliveriesPerSecond, DELIVERY_PER_ENDPOINT, driveTransitions, eventLag, seedAwaiting, startReceiver, waitFor, type Receiver } from "./webhooks";
import { hashKey } from "@/server/domain/api-keys";
import { REMEMBERED_MAX } from "@/server/services/idempotency/remembered";
import { ensureBuild, npm, ROOT, seed } from "./build";
import { cpuWindow, descendants, mergeCpu, waitForQuiet, type CpuUse } from "./cpu";
import { ensureDataset } from "./dataset";
import { alternateSchedule, dueOffsetMs, expiryLateness, seedExpiries, windowStarts, type ExpirySchedule } from "./timers";
import { connect, resolveDatabaseUrl, tableDeltas, walBytes, walRecords, writeSnapshot } from "./db";
import { load, paced, summarize, type PacedRequest, type Samples } from "./load";
import { cpuLines, table, type Measured, type Row } from "./report";
import { nodeVersions, startServer, type Server } from "./server";
import { runSoak, startSoakServer, type SoakReport } from "./soak";
import { CPU_SLOWDOWN, createHostedPages, JS_RATIO_BUDGET, kB, LCP_BUDGET_MS, measurePages, pageNotes } from "./pages";

const PORT = Number(process.env.BENCH_PORT ?? 3200);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 12);
const ROUNDS = Math.max(1, Number(process.env.BENCH_ROUNDS ?? 3));
const WARMUP = Number(process.env.BENCH_WARMUP ?? 4);
const ROWS = Number(process.env.BENCH_ROWS ?? 1_000_000);
const DEEP = Math.floor(ROWS / 2);
const WRITE_CONNECTIONS = 50;
const READ_CONNECTIONS = 10;
const TIMER_COUNT = wholeNumber("BENCH_TIMERS", 10_000, 1);
/** 10,000 over 60 s: the rate at which the expiries fall due inside their windows. */
const TIMER_RATE = 10_000 / 60;
/** A window with expiries due, then one without, each followed by this long for the late ones. */
const TIMER_SLOT_MS = 4_000;
const TIMER_SETTLE_MS = 2_000;
const WEBHOOK_EVENTS = wholeNumber("BENCH_WEBHOOK_EVENTS", 5_000, 1);
const WEBHOOK_RATE = 200;
/** Between rounds, so that requests cut off at the end of one cannot load the next. */
const ROUND_GAP_MS = 1_500;
const QUIET_WAIT_S = Number(process.env.BENCH_QUIET_WAIT ?? 120);
const PAGE_RUNS = Number(process.env.BENCH_PAGE_RUNS ?? 5);
const PAGES_BASELINE = "/bench/empty";
const SOAK_SECONDS = Number(process.env.BENCH_SOAK_SECONDS ?? 600);
/** The tables the floor and the creates write to. */
const WRITTEN_TABLES = ["payments", "idempotency_keys", "bench_floor"];
/** PostgreSQL backends flush table statistics at most every 10 s when idle (PGSTAT_IDLE_INTERVAL). */
const STATS_SETTLE_MS = 11_000;
/** A substring of ten references (INV-00421370 … INV-00421379). */
const SEARCH = "0042137";
/** The same ten rows, searched with the prefix that every reference shares. */
const SEARCH_PREFIXED = "INV-0042137";

const say = (s: string) => process.stderr.write(`[bench] ${s}\n`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

type Ctx = { server: Server; sql: Sql };
/** A load phase: how to run it for some seconds. */
type Phase = { name: string; connections: number; run: (seconds: number) => Promise<Samples> };

/**
 * CPU of this process's children that have exited and been reaped (Chromium, once closed), in ms:
 * /proc/self/stat cutime + cstime. The CPU windows sample live processes only, so without this the
 * browser's work would count as "other". A lower bound: on Chromium 156 not all of a renderer's
 * time reaches it (a busy page showed about 70 %), so part of the browser still shows as "other".
 */
function reapedChildrenCpuMs(): number {
  try {
    const stat = readFileSync("/proc/self/stat", "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(fields[13]) + Number(fields[14])) * 10; // USER_HZ is 100 on Linux
  } catch {
    return 0;
  }
}

function withBrowser(use: CpuUse, browserMs: number): CpuUse {
  const coresOurs = use.coresOurs + browserMs / 1000 / use.seconds;
  return { ...use, coresOurs, coresOther: Math.max(0, use.coresBusy - coresOurs) };
}

/** PostgreSQL backends serving this database: the server's pool (and our own connection). */
async function ourBackends(sql: Sql): Promise<number[]> {
  const rows = await sql<{ pid: number }[]>`select pid from pg_stat_activity where datname = current_database()`;
  return rows.map((r) => r.pid);
}

/** One round of a phase, with the CPU of the server, its database backends and this process meanwhile. */
async function measureRound(ctx: Ctx, phase: Phase, seconds: number): Promise<{ samples: Samples; cpu: CpuUse }> {
  const pg0 = await ourBackends(ctx.sql);
  const window = cpuWindow(() => [...descendants(ctx.server.pid), ...pg0], ctx.server.pid);
  const samples = await phase.run(seconds);
  const pg1 = await ourBackends(ctx.sql);
  return { samples, cpu: window.end(() => [...descendants(ctx.server.pid), ...pg1]) };
}

/**
 * Measures phases that will be compared with each other: each is warmed up, then they take turns
 * (ROUNDS rounds of SECONDS / ROUNDS each), so that a change in the machine's background load
 * hits all of them alike instead of skewing their ratio.
 */
async function interleaved(ctx: Ctx, phases: Phase[], opts: { waitForQuiet?: boolean; analyze?: string[] } = {}): Promise<Measured[]> {
  if (opts.waitForQuiet !== false) await waitForQuiet(say, 0.25, QUIET_WAIT_S);
  for (const p of phases) {
    if (WARMUP <= 0) continue;
    say(`${p.name}: warm-up ${WARMUP} s`);
    await p.run(WARMUP);
    await sleep(ROUND_GAP_MS);
  }
  if (opts.analyze?.length) {
    // The ANALYZE that autovacuum runs once a table has grown (see the write phases' call).
    say(`analyze ${opts.analyze.join(", ")}`);
    await ctx.sql.unsafe(`analyze ${opts.analyze.join(", ")}`);
  }
  const samples: Samples[][] = phases.map(() => []);
  const cpu: CpuUse[][] = phases.map(() => []);
  const seconds = SECONDS / ROUNDS;
  say(`measuring ${phases.map((p) => p.name).join(" / ")}: ${ROUNDS} × ${seconds.toFixed(1)} s each`);
  for (let round = 0; round < ROUNDS; round++) {
    for (const [i, p] of phases.entries()) {
      const measured = await measureRound(ctx, p, seconds);
      samples[i]!.push(measured.samples);
      cpu[i]!.push(measured.cpu);
      await sleep(ROUND_GAP_MS);
    }
  }
  return phases.map((p, i) => {
    const r: Measured = { ...summarize(samples[i]!, p.connections), cpu: mergeCpu(cpu[i]!) };
    say(
      `${p.name}: ${r.rps.toFixed(0)} req/s, p50 ${r.p50.toFixed(1)} ms, p99 ${r.p99.toFixed(1)} ms, ${JSON.stringify(r.statuses)}` +
        `${r.firstAnswerMax === undefined ? "" : `, slowest first answer on a new connection ${r.firstAnswerMax.toFixed(0)} ms (not in the percentiles)`}; ` +
        `cores busy ${r.cpu.coresBusy.toFixed(2)} (bench ${r.cpu.coresOurs.toFixed(2)}, other ${r.cpu.coresOther.toFixed(2)}), server's main thread ${((r.cpu.loop ?? Number.NaN) * 100).toFixed(0)} %`,
    );
    return r;
  });
}

/**
 * Runs `phase` in the windows of `schedule` from `start`: a round in each window with expiries due
 * (`on`) and one in each window without (`off`), taking turns like `interleaved`'s rounds.
 */
async function alternating(ctx: Ctx, phase: Phase, schedule: ExpirySchedule, start: number): Promise<{ on: Measured; off: Measured }> {
  const samples = { on: [] as Samples[], off: [] as Samples[] };
  const cpu = { on: [] as CpuUse[], off: [] as CpuUse[] };
  let late = 0;
  say(`measuring ${phase.name}: ${schedule.slots} rounds of ${schedule.slotMs / 1000} s with expiries due, each followed by one without`);
  for (const window of windowStarts(schedule)) {
    for (const side of ["on", "off"] as const) {
      const wait = start + window[side] - Date.now();
      if (wait < -250) late++;
      await sleep(Math.max(0, wait));
      const measured = await measureRound(ctx, phase, schedule.slotMs / 1000);
      samples[side].push(measured.samples);
      cpu[side].push(measured.cpu);
    }
  }
  if (late > 0) say(`${phase.name}: ${late} rounds started more than 250 ms after their window`);
  const measured = (side: "on" | "off"): Measured => ({ ...summarize(samples[side], phase.connections), cpu: mergeCpu(cpu[side]) });
  return { on: measured("on"), off: measured("off") };
}

/** As fast as `connections` connections go, each sending its next request when the last one answers. */
function cannon(url: string, name: string, connections: number, requests: RequestSpec[]): Phase {
  return { name, connections, run: (seconds) => load({ url, connections, seconds, requests }) };
}

async function expectStatus(url: string, init: RequestInit, status: number, what: string): Promise<Record<string, unknown>> {
  const res = await fetch(url, init);
  const text = await res.text();
  if (res.status !== status) throw new Error(`${what}: expected ${status}, got ${res.status}: ${text.slice(0, 500)}`);
  return JSON.parse(text) as Record<string, unknown>;
}

/** A count from the environment, refused before anything starts when it is not a whole number ≥ min. */
function wholeNumber(name: string, fallback: number, min: number): number {
  const value = Number(process.env[name] ?? fallback);
  if (!Number.isInteger(value) || value < min) throw new Error(`${name} must be a whole number of at least ${min}, not ${JSON.stringify(process.env[name])}`);
  return value;
}

async function main(): Promise<void> {
  const databaseUrl = await resolveDatabaseUrl(process.env.DATABASE_URL);
  const shownUrl = databaseUrl.replace(/\/\/([^:@/]+):[^@]*@/, "//$1:***@");
  const baseEnv: NodeJS.ProcessEnv = { ...process.env, DATABASE_URL: databaseUrl, LOG_LEVEL: "warn", BOOTSTRAP_DEMO: "false" };
  // Rate-limit counters stay in memory: the bench measures this process, not Redis.
  delete baseEnv.REDIS_URL;

  say(`database ${shownUrl}`);
  npm(["db:migrate"], baseEnv);
  ensureBuild(baseEnv, say);
  const creator = seed("bench", baseEnv);
  const lister = seed("bench-list", baseEnv);
  const timers = seed("bench-timers", baseEnv);
  const hooks = seed("bench-webhooks", baseEnv);
  const soaker = seed("bench-soak", baseEnv);

  const sql = connect(databaseUrl, 1);
  const holder: { server?: Server; receiver?: Receiver } = {};
  const onSignal = () => {
    void (holder.server?.stop() ?? Promise.resolve()).finally(() => process.exit(130));
  };
  process.once("SIGINT", onSignal);
  process.once("SIGTERM", onSignal);

  try {
    const [pg] = await sql<{ version: string; shared_buffers: string; sync: string; autovacuum: string; fsync: string }[]>`
      select current_setting('server_version') as version, current_setting('shared_buffers') as shared_buffers,
        current_setting('synchronous_commit') as sync, current_setting('autovacuum') as autovacuum, current_setting('fsync') as fsync`;

    // A clean slate for the write phases: the previous run's creates and floor rows go.
    await sql.unsafe(FLOOR_TABLE_DDL);
    await sql`truncate bench_floor`;
    await sql`delete from idempotency_keys where merchant_id = ${creator.merchant_id}`;
    await sql`delete from payments where merchant_id = ${creator.merchant_id}`;
    // The created payments must not expire while the bench runs: the expiry work they would cause
    // belongs to the timers benchmark, not to the create or floor rows.
    await sql`update merchants set payment_expiry_seconds = 3600 where id = ${creator.merchant_id}`;
    const dataset = await ensureDataset(sql, lister.merchant_id, ROWS, say);
    say(dataset.built ? `dataset built in ${dataset.seconds.toFixed(0)} s` : `dataset present (${ROWS.toLocaleString("en")} payments)`);
    await sql`vacuum (analyze) payments, idempotency_keys, api_keys, bench_floor`;
    const [deep] = await sql<{ id: string }[]>`
      select id from payments where merchant_id = ${lister.merchant_id} and livemode = false
      order by id desc offset ${DEEP - 1} limit 1`;

    const poolMax = process.env.BENCH_POOL_MAX;
    const server = await startServer(ROOT, PORT, {
      ...baseEnv,
      NODE_ENV: "production",
      BENCH_ROUTES: "true",
      RATE_LIMIT_TEST_PER_SECOND: "1000000",
      RATE_LIMIT_LIVE_PER_SECOND: "1000000",
      // The sandbox answers each create by callback ~3 s later; that work would land in whichever
      // phase runs next (the floor, in the interleaved rounds) and skew the ratio. Push it past the
      // end of the run: the create row measures the request path alone.
      SANDBOX_DELAY_SCALE: "10000",
      // The webhook receiver listens on 127.0.0.1.
      WEBHOOK_ALLOW_PRIVATE_NETWORKS: "true",
      ...(poolMax ? { DATABASE_POOL_MAX: poolMax } : {}),
    });
    holder.server = server;
    const ctx: Ctx = { server, sql };
    say(`next start pid ${server.pid} on ${server.url}`);

    // ---- reads: 10 connections on the 1M-payment merchant -------------------------------------
    const listHeaders = { authorization: `Bearer ${lister.keys.test}` };
    const list = (name: string, query: string): Phase =>
      cannon(server.url, name, READ_CONNECTIONS, [{ method: "GET", path: `/v1/payments${query}`, headers: listHeaders }]);
    const rowsOf = async (query: string) =>
      ((await expectStatus(`${server.url}/v1/payments${query}`, { headers: listHeaders }, 200, `GET /v1/payments${query}`)).data as unknown[]).length;
    const nFirst = await rowsOf("");
    const nDeep = await rowsOf(`?starting_after=${deep!.id}`);
    const nFound = await rowsOf(`?search=${SEARCH}`);
    const nPrefixed = await rowsOf(`?search=${SEARCH_PREFIXED}`);
    say(`first page ${nFirst} rows; after #${DEEP.toLocaleString("en")} (${deep!.id}) ${nDeep}; search '${SEARCH}' ${nFound}, '${SEARCH_PREFIXED}' ${nPrefixed}`);
    if (nFirst !== 10 || nDeep !== 10 || nFound === 0 || nFound > 20 || nPrefixed !== nFound) throw new Error("list answers are not what the dataset should give");

    const readFloorPath = `/api/bench/read?merchant=${lister.merchant_id}`;
    const floorRows = (await expectStatus(`${server.url}${readFloorPath}`, {}, 200, "read floor route")) as unknown as unknown[];
    if (floorRows.length !== 11) throw new Error("the read floor route should answer 11 rows");
    const [readFloorR, firstR, deepR, searchR, prefixedR] = await interleaved(ctx, [
      cannon(server.url, "read floor", READ_CONNECTIONS, [{ method: "GET", path: readFloorPath }]),
      list("list first page", ""),
      list("list deep", `?starting_after=${deep!.id}`),
      list("search", `?search=${SEARCH}`),
      list("search with prefix", `?search=${SEARCH_PREFIXED}`),
    ]);

    // ---- writes: 50 connections -----------------------------------------------------------------
    const run = randomBytes(4).toString("hex");
    const bodyFor = (i: number) =>
      JSON.stringify({ amount: 100 + ((i * 37) % 90_000), currency: "USD", method: "wallet", reference: `bench-${run}-${i}`, customer: { msisdn: "0771234567" } });
    const keyFor = (i: number) => `bench-${run}-${i}`;
    const createHeaders = { authorization: `Bearer ${creator.keys.test}`, "content-type": "application/json" };

    const floorBody = bodyFor(0);
    await expectStatus(`${server.url}/api/bench/insert`, { method: "POST", body: floorBody, headers: { "content-type": "application/json" } }, 201, "floor route");
    const sample = await expectStatus(
      `${server.url}/v1/payments`,
      { method: "POST", headers: { ...createHeaders, "idempotency-key": keyFor(0) }, body: bodyFor(0) },
      201,
      "create",
    );
    if (sample.status !== "awaiting_customer" || !sample.provider_reference) throw new Error(`unexpected create answer: ${JSON.stringify(sample)}`);

    let next = 1;
    const created: number[] = [0];
    const createdRef = new RegExp(`"reference":"bench-${run}-(\\d+)"`);
    const createRequest = (): PacedRequest => {
      const i = next++;
      return { method: "POST", path: "/v1/payments", headers: { ...createHeaders, "idempotency-key": keyFor(i) }, body: bodyFor(i) };
    };
    const recordCreated = (status: number, body: string) => {
      const m = status === 201 ? createdRef.exec(body) : null;
      if (m) created.push(Number(m[1]));
    };
    // The creates' tables were emptied above, which a production table never is, and this
    // server may run without autovacuum: once the warm-ups have refilled them, they are analyzed
    // as autovacuum would. Otherwise each of the server's connections keeps the generic plan it
    // made for a near-empty table (a sequential scan of idempotency_keys in the statement that
    // completes each create's record) and pays for it with every row the run adds.
    const [floorR, createR] = await interleaved(ctx, [
      cannon(server.url, "floor", WRITE_CONNECTIONS, [
        { method: "POST", path: "/api/bench/insert", headers: { "content-type": "application/json" }, body: floorBody },
      ]),
      cannon(server.url, "create", WRITE_CONNECTIONS, [
        {
          method: "POST",
          path: "/v1/payments",
          headers: createHeaders,
          setupRequest: (req) => ({ ...req, ...createRequest() }),
          onResponse: recordCreated,
        },
      ]),
    ], { analyze: WRITTEN_TABLES });
    // Closed-loop latency at 50 connections is 50 / throughput (Little's law): it says how deep the
    // queue is, not how fast a request is. The paced run shows what a client sees below saturation:
    // the same requests at a steady half of the measured create throughput.
    const pacedRate = Math.max(1, Math.round(createR!.rps / 2));
    const [pacedR] = await interleaved(ctx, [
      {
        name: `create at ${pacedRate} req/s`,
        connections: WRITE_CONNECTIONS,
        run: (seconds) => paced({ url: server.url, rate: pacedRate, seconds, maxSockets: WRITE_CONNECTIONS, next: createRequest, onResponse: recordCreated }),
      },
    ]);
    const createEnded = Date.now();
    say(`${created.length.toLocaleString("en")} payments created; preparing the replay write check`);

    // Replay must write nothing, and that must be checkable. Stamp the key's last_used_at, which
    // authentication refreshes at most once a minute, so that the replay phase (well under a
    // minute from here) cannot trigger that refresh. Then VACUUM, so that reading rows updated
    // before the phase cannot prune their pages (a WAL write of its own), pg_statistic included,
    // which the ANALYZE has just rewritten and the planner reads.
    await waitForQuiet(say, 0.25, QUIET_WAIT_S);
    await sql`update api_keys set last_used_at = now() where hash = ${hashKey(creator.keys.test)}`;
    await sql`vacuum (analyze) payments, idempotency_keys, api_keys`;
    await sql`vacuum pg_statistic`;
    await sleep(Math.max(0, createEnded + STATS_SETTLE_MS - Date.now()));
    const before = await writeSnapshot(sql);

    // The retries of the most recent creates, as a client retries a request seconds after it, and
    // half as many as a process remembers (REMEMBERED_MAX): those are answered from memory. Cycling
    // through more keys than that would miss the memory on every replay (the oldest record is the
    // one dropped, and the next one asked for) and measure the database's answer instead, which a
    // retry reaching another process gets.
    const replayKeys = created.slice(-REMEMBERED_MAX / 2);
    let cursor = 0;
    let replayed = 0;
    let notReplayed = 0;
    const replayPhase = cannon(server.url, "replay", WRITE_CONNECTIONS, [
      {
        method: "POST",
        path: "/v1/payments",
        headers: createHeaders,
        setupRequest: (req) => {
          const i = replayKeys[cursor++ % replayKeys.length]!;
          return { ...req, headers: { ...req.headers, "idempotency-key": keyFor(i) }, body: bodyFor(i) };
        },
        onResponse: (_status, _body, _context, headers) => {
          if (headers["idempotent-replayed"] === "true") replayed++;
          else notReplayed++;
        },
      },
    ]);
    // Waited for quiet above: the last_used_at stamp must stay under a minute old.
    const [replayR] = await interleaved(ctx, [replayPhase], { waitForQuiet: false });
    const [end] = await sql<{ lsn: string }[]>`select pg_current_wal_lsn()::text as lsn`;
    say("waiting for PostgreSQL's table statistics to settle");
    await sleep(STATS_SETTLE_MS);
    const after = await writeSnapshot(sql);
    const replayTuples = after.tuples - before.tuples;
    const replayWal = await walBytes(sql, before.lsn, end!.lsn);
    const wal = await walRecords(sql, before.lsn, end!.lsn);
    const writes = tableDeltas(before, after);

    // ---- timers: 10,000 expiries while the API takes creates, in alternate rounds ---------------
    const schedule = alternateSchedule(TIMER_COUNT, TIMER_RATE, TIMER_SLOT_MS, TIMER_SETTLE_MS);
    const createAgain = cannon(server.url, "create, expiries due / none due", WRITE_CONNECTIONS, [
      { method: "POST", path: "/v1/payments", headers: createHeaders, setupRequest: (req) => ({ ...req, ...createRequest() }), onResponse: recordCreated },
    ]);
    // The first window opens after the seeding and a warm-up of the creates.
    const timersStart = Date.now() + 2_000 + WARMUP * 1000 + ROUND_GAP_MS;
    const lastDue = timersStart + dueOffsetMs(schedule, TIMER_COUNT - 1);
    await seedExpiries(sql, timers.merchant_id, schedule, new Date(timersStart));
    const [due] = await sql<{ first: Date; last: Date }[]>`
      select min(expires_at) as first, max(expires_at) as last from payments where merchant_id = ${timers.merchant_id}`;
    if (due!.first.getTime() !== timersStart || due!.last.getTime() !== lastDue) {
      throw new Error(`the expiries were not seeded as scheduled: ${due!.first.toISOString()} … ${due!.last.toISOString()}`);
    }
    say(`timers: ${TIMER_COUNT.toLocaleString("en")} awaiting payments, due ${schedule.perSlot} in each of ${schedule.slots} windows of ${schedule.slotMs / 1000} s`);
    if (WARMUP > 0) await createAgain.run(WARMUP);
    const { on: createWithTimersR, off: createBetweenTimersR } = await alternating(ctx, createAgain, schedule, timersStart);
    say(
      `create while expiries are due: ${createWithTimersR.rps.toFixed(0)} req/s, p99 ${createWithTimersR.p99.toFixed(1)} ms; ` +
        `between: ${createBetweenTimersR.rps.toFixed(0)} req/s, p99 ${createBetweenTimersR.p99.toFixed(1)} ms`,
    );
    await sleep(Math.max(0, lastDue + 5_000 - Date.now()));
    const lateness = await expiryLateness(sql, timers.merchant_id);
    say(`timers: ${lateness.expired} expired, ${lateness.notExpired} not; lateness p50 ${lateness.p50.toFixed(0)} ms, p99 ${lateness.p99.toFixed(0)} ms, max ${lateness.max.toFixed(0)} ms`);
    // ---- webhooks: lag at 200 events/s, then a burst against a bare keep-alive client -----------
    const receiver = await startReceiver();
    holder.receiver = receiver;
    const hookPayments = await seedAwaiting(sql, hooks.merchant_id, WEBHOOK_EVENTS);
    await expectStatus(
      `${server.url}/v1/webhook_endpoints`,
      {
        method: "POST",
        headers: { authorization: `Bearer ${hooks.keys.test}`, "content-type": "application/json" },
        body: JSON.stringify({ url: receiver.url, enabled_events: ["*"] }),
      },
      201,
      "webhook endpoint",
    );
    await waitForQuiet(say, 0.25, QUIET_WAIT_S);
    say(`webhooks: ${WEBHOOK_EVENTS.toLocaleString("en")} events committed at ${WEBHOOK_RATE}/s by this process`);
    const lagCpu = cpuWindow(() => [...descendants(server.pid)], server.pid);
    const driven = await driveTransitions(databaseUrl, hookPayments, WEBHOOK_RATE);
    await waitFor(async () => (await receiver.refresh(), receiver.received.size >= WEBHOOK_EVENTS), 30_000);
    const lagCpuUse = lagCpu.end(() => [...descendants(server.pid)]);
    const lag = await eventLag(sql, hooks.merchant_id, receiver);
    say(`webhooks: ${lag.received}/${lag.expected} received; lag p50 ${lag.p50.toFixed(0)} ms, p99 ${lag.p99.toFixed(0)} ms, max ${lag.max.toFixed(0)} ms; transitions that failed: ${driven.failed}`);

    await waitForQuiet(say, 0.25, QUIET_WAIT_S);
    say(`webhooks: a burst of ${WEBHOOK_EVENTS.toLocaleString("en")} events committed at once`);
    const burstCpu = cpuWindow(() => [...descendants(server.pid)], server.pid);
    const burst = await commitBurst(sql, hooks.merchant_id, hookPayments);
    await waitFor(async () => (await receiver.refresh(), burst.every((e) => receiver.received.has(e.id))), 60_000);
    const burstCpuUse = burstCpu.end(() => [...descendants(server.pid)]);
    const pipelineRate = deliveriesPerSecond(receiver, burst.map((e) => e.id));
    const burstMissing = burst.filter((e) => !receiver.received.has(e.id)).length;
    await waitForQuiet(say, 0.25, QUIET_WAIT_S);
    const bareRate = await bareClient(receiver.url, burst.map((e) => e.body), DELIVERY_PER_ENDPOINT);
    say(`webhooks: pipeline ${pipelineRate.toFixed(0)} deliveries/s (${burstMissing} missing), bare client ${bareRate.toFixed(0)} posts/s`);
    await receiver.close();
    holder.receiver = undefined;

    // ---- hosted pages: LCP and first-load JS on a slow phone (bench/pages.ts) -------------------
    await waitForQuiet(say, 0.25, QUIET_WAIT_S);
    const hosted = await createHostedPages(server.url, creator.keys.test);
    const pagesPg = await ourBackends(sql);
    const pagesCpu = cpuWindow(() => [...descendants(server.pid), ...pagesPg], server.pid);
    const browserCpu0 = reapedChildrenCpuMs();
    const pages = await measurePages({
      baseUrl: server.url,
      pages: [
        { name: "pay", path: `/pay/${hosted.linkId}` },
        { name: "checkout", path: `/checkout/${hosted.sessionId}` },
      ],
      baselinePath: PAGES_BASELINE,
      runs: PAGE_RUNS,
      log: (s) => say(`pages: ${s}`),
    });
    const pagesCpuUse = withBrowser(
      pagesCpu.end(() => [...descendants(server.pid), ...pagesPg]),
      reapedChildrenCpuMs() - browserCpu0,
    );

    // ---- sustained mixed load (bench/soak.ts) ---------------------------------------------------
    // The server above delays the sandbox's callbacks past the end of the run; the soak needs them
    // at their normal speed, so it gets a server of its own on the same port once the first is gone.
    let soak: SoakReport | undefined;
    if (SOAK_SECONDS > 0) {
      await server.stop();
      const soakServer = await startSoakServer(PORT, { ...baseEnv, ...(poolMax ? { DATABASE_POOL_MAX: poolMax } : {}) });
      holder.server = soakServer.server;
      say(`soak: next start pid ${soakServer.server.pid} on ${soakServer.server.url}`);
      soak = await runSoak({ ...soakServer, sql, merchant: soaker, say, seconds: SOAK_SECONDS, quietWaitSeconds: QUIET_WAIT_S });
    }

    const noWrites = replayTuples === 0 && ("unavailable" in wal || wal.userRelations === 0) && notReplayed === 0;

    // ---- the table ------------------------------------------------------------------------------
    const x = (v: number) => `${v.toFixed(2)}×`;
    const clean = (r: Measured) => r.failures === 0;
    const rows: Row[] = [
      { phase: "floor: POST /api/bench/insert (1 INSERT)", connections: WRITE_CONNECTIONS, r: floorR!, ratio: "1.00×", target: "–", pass: null },
      {
        phase: "create: POST /v1/payments",
        connections: WRITE_CONNECTIONS,
        r: createR!,
        ratio: `${x(createR!.rps / floorR!.rps)} floor`,
        target: "≥ 0.60× floor, p99 ≤ 100 ms",
        pass: createR!.rps / floorR!.rps >= 0.6 && createR!.p99 <= 100 && clean(createR!),
      },
      {
        phase: `create, steady ${pacedRate} req/s (½ of max)`,
        connections: WRITE_CONNECTIONS,
        r: pacedR!,
        ratio: "–",
        target: "none (p99 below saturation)",
        pass: null,
      },
      {
        phase: "replay: same key + same body",
        connections: WRITE_CONNECTIONS,
        r: replayR!,
        ratio: `${x(replayR!.rps / createR!.rps)} create`,
        target: "≥ 1.50× create, 0 writes",
        pass: replayR!.rps / createR!.rps >= 1.5 && noWrites && clean(replayR!),
      },
      {
        phase: `create between the expiries (${schedule.slots} rounds of ${schedule.slotMs / 1000} s, none due)`,
        connections: WRITE_CONNECTIONS,
        r: createBetweenTimersR,
        ratio: "1.00×",
        target: "–",
        pass: null,
      },
      {
        phase: `create while ${TIMER_COUNT.toLocaleString("en")} expiries fire (the other ${schedule.slots} rounds)`,
        connections: WRITE_CONNECTIONS,
        r: createWithTimersR,
        ratio: `${x(createWithTimersR.rps / createBetweenTimersR.rps)} between`,
        target: "≥ 0.90× between",
        pass: createWithTimersR.rps / createBetweenTimersR.rps >= 0.9 && clean(createWithTimersR) && clean(createBetweenTimersR),
      },
      {
        phase: `expiry lateness (${lateness.expired.toLocaleString("en")} of ${TIMER_COUNT.toLocaleString("en")}, ${schedule.perSlot} due per ${schedule.slotMs / 1000} s round)`,
        connections: 0,
        // Lateness in the latency columns; "req/s" is expiries per second of the windows they fell due in.
        r: { ...createWithTimersR, rps: lateness.expired / ((schedule.slots * schedule.slotMs) / 1000), p50: lateness.p50, p99: lateness.p99, max: lateness.max, failures: lateness.notExpired },
        ratio: "–",
        target: "p99 ≤ 2 s, all expired",
        pass: lateness.p99 <= 2_000 && lateness.notExpired === 0,
      },
      {
        phase: "read floor: GET /api/bench/read (1 SELECT)",
        connections: READ_CONNECTIONS,
        r: readFloorR!,
        ratio: "1.00× (p99)",
        target: "–",
        pass: null,
      },
      {
        phase: "list: first page",
        connections: READ_CONNECTIONS,
        r: firstR!,
        ratio: `${x(firstR!.p99 / readFloorR!.p99)} floor (p99)`,
        target: "p99 ≤ 20 ms",
        pass: firstR!.p99 <= 20 && clean(firstR!),
      },
      {
        phase: `list: starting_after #${DEEP.toLocaleString("en")}`,
        connections: READ_CONNECTIONS,
        r: deepR!,
        ratio: `${x(deepR!.p99 / firstR!.p99)} first (p99)`,
        target: "p99 ≤ 20 ms, ≤ 1.20× first",
        pass: deepR!.p99 <= 20 && deepR!.p99 / firstR!.p99 <= 1.2 && clean(deepR!),
      },
      {
        phase: `list: search=${SEARCH} (${nFound} rows)`,
        connections: READ_CONNECTIONS,
        r: searchR!,
        ratio: "–",
        target: "p99 ≤ 20 ms",
        pass: searchR!.p99 <= 20 && clean(searchR!),
      },
      { phase: `list: search=${SEARCH_PREFIXED} (same rows)`, connections: READ_CONNECTIONS, r: prefixedR!, ratio: "–", target: "none (see notes)", pass: null },
      {
        phase: `webhook lag (${lag.received.toLocaleString("en")} of ${WEBHOOK_EVENTS.toLocaleString("en")} at ${WEBHOOK_RATE}/s)`,
        connections: 0,
        // Lag in the latency columns; "req/s" is the event rate.
        r: { ...pacedR!, rps: WEBHOOK_RATE, p50: lag.p50, p99: lag.p99, max: lag.max, failures: lag.expected - lag.received, cpu: lagCpuUse },
        ratio: "–",
        target: "p99 ≤ 1 s, all received",
        pass: lag.p99 <= 1_000 && lag.received === WEBHOOK_EVENTS && lag.expected === WEBHOOK_EVENTS && driven.failed === 0,
      },
      {
        phase: `webhook bare client (${DELIVERY_PER_ENDPOINT} in flight)`,
        connections: DELIVERY_PER_ENDPOINT,
        r: { ...pacedR!, rps: bareRate, p50: Number.NaN, p99: Number.NaN, max: Number.NaN, failures: 0, cpu: burstCpuUse },
        ratio: "1.00×",
        target: "–",
        pass: null,
      },
      {
        phase: `webhook peak (burst of ${WEBHOOK_EVENTS.toLocaleString("en")})`,
        connections: DELIVERY_PER_ENDPOINT,
        r: { ...pacedR!, rps: pipelineRate, p50: Number.NaN, p99: Number.NaN, max: Number.NaN, failures: burstMissing, cpu: burstCpuUse },
        ratio: `${x(pipelineRate / bareRate)} bare`,
        target: "≥ 0.30× bare",
        pass: pipelineRate / bareRate >= 0.3 && burstMissing === 0,
      },
    ];

    // The page budgets: only the pay page is judged; the checkout page is shown against the same budgets.
    const pageRows = pages.pages.flatMap((p): Row[] => {
      const judged = p.name === "pay";
      const loads = p.runs.length;
      const statuses: Record<string, number> = {};
      for (const l of p.runs) statuses[l.status] = (statuses[l.status] ?? 0) + 1;
      if (loads === 0) statuses[p.checked] = 1;
      const ok = p.runs.filter((l) => l.status === 200).length;
      const base: Measured = {
        connections: 1,
        seconds: pagesCpuUse.seconds,
        ok,
        // Cold loads per second of the whole page phase: a count, not a throughput target.
        rps: ok / pagesCpuUse.seconds,
        p50: Number.NaN,
        p99: Number.NaN,
        max: Number.NaN,
        failures: loads === 0 ? 1 : loads - ok,
        statuses,
        cpu: pagesCpuUse,
      };
      const note = judged ? "" : " (shown, not judged)";
      const label = `${p.name} page ${p.name === "pay" ? "/pay/{id}" : "/checkout/{id}"}`;
      const js = p.unavailable ? `unavailable, ${p.unavailable}` : `${kB(p.js.transferred)} in ${p.js.scripts} scripts, empty page ${kB(pages.baseline.js.transferred)}`;
      const lcp = p.unavailable ? `unavailable, ${p.unavailable}` : `Slow 4G, ${CPU_SLOWDOWN}× CPU, p99 = max of ${loads} cold loads`;
      return [
        {
          phase: `${label}: first-load JS (${js})`,
          connections: 1,
          r: base,
          ratio: p.ratio ? `${x(p.ratio.transferred)} empty (decoded ${x(p.ratio.decoded)})` : "–",
          target: `≤ ${JS_RATIO_BUDGET.toFixed(2)}× empty, transferred${note}`,
          pass: judged ? p.meets.js : null,
        },
        {
          phase: `${label}: LCP (${lcp})`,
          connections: 1,
          // The same loads as the row above, whose failures already list them.
          r: { ...base, p50: p.lcpMedian ?? Number.NaN, p99: p.lcpMax ?? Number.NaN, max: p.lcpMax ?? Number.NaN, failures: 0 },
          ratio: "–",
          target: `median ≤ ${(LCP_BUDGET_MS / 1000).toFixed(1)} s${note}`,
          pass: judged ? p.meets.lcp : null,
        },
      ];
    });
    rows.push(...pageRows, ...(soak?.rows ?? []));

    const cpus = os.cpus();
    const machine = [
      `date        ${new Date().toISOString()}`,
      `machine     ${cpus.length} cores (${cpus[0]?.model ?? "?"}), ${(os.totalmem() / 2 ** 30).toFixed(0)} GB RAM; the load generator, next start and PostgreSQL share these cores`,
      `node        ${nodeVersions()}; next start (production build), DATABASE_POOL_MAX=${poolMax ?? "app default"}`,
      `postgresql  ${pg!.version} (shared_buffers ${pg!.shared_buffers}, synchronous_commit ${pg!.sync}, fsync ${pg!.fsync}, autovacuum ${pg!.autovacuum})`,
      `phases      ${WARMUP} s warm-up, then ${SECONDS} s measured in ${ROUNDS} interleaved rounds; list dataset ${ROWS.toLocaleString("en")} payments for one merchant ` +
        (dataset.built ? `(built in ${dataset.seconds.toFixed(0)} s)` : "(reused)"),
      `pages       ${pages.browser}; ${pages.conditions}`,
    ];
    const walLine =
      "unavailable" in wal
        ? `WAL records not inspected (${wal.unavailable})`
        : `WAL records on this database's tables and indexes: ${wal.userRelations} (catalog pages: ${wal.catalogs}; all databases: ${wal.total})`;
    const writeCheck = [
      `replay write check: n_tup_ins+upd+del Δ = ${replayTuples} (${before.tuples} → ${after.tuples})` +
        (Object.keys(writes).length ? ` ${JSON.stringify(writes)}` : "") +
        `; WAL ${before.lsn} → ${end!.lsn} = ${replayWal} bytes (cluster-wide); ${walLine}; ` +
        `answers with Idempotent-Replayed: true ${replayed.toLocaleString("en")}, without ${notReplayed}`,
    ];
    const failures = rows.filter((r) => r.r.failures > 0).map((r) => `FAILED REQUESTS in ${r.phase}: ${JSON.stringify(r.r.statuses)}`);
    const output = [...machine, "", table(rows), "", ...writeCheck, ...pageNotes(pages), ...(soak?.lines ?? []), ...cpuLines(rows, cpus.length), ...failures];
    const passed = rows.filter((r) => r.pass === true).length;
    const judged = rows.filter((r) => r.pass !== null).length;
    output.push("", `${passed}/${judged} targets met`);
    process.stdout.write(`\n${output.join("\n")}\n`);

    const dir = path.join(ROOT, "bench", "results");
    mkdirSync(dir, { recursive: true });
    const stamp = new Date().toISOString().replace(/[:.]/g, "-");
    const details = {
      machine,
      rows: rows.map(({ phase: name, r, ratio, target, pass }) => ({ phase: name, ...r, ratio, target, pass })),
      replay: { before, after, endLsn: end!.lsn, walBytes: replayWal, walRecords: wal, replayed, notReplayed },
      created: created.length,
      timers: lateness,
      webhooks: { lag, pipelineRate, bareRate, burstMissing, failedTransitions: driven.failed },
      pages,
      soak: soak?.details,
    };
    writeFileSync(path.join(dir, `${stamp}.json`), `${JSON.stringify(details, null, 2)}\n`);
    writeFileSync(path.join(dir, `${stamp}.md`), `${output.join("\n")}\n`);
    say(`details in bench/results/${stamp}.json`);
  } finally {
    await holder.receiver?.close();
    await holder.server?.stop();
    await sql.end();
    process.off("SIGINT", onSignal);
    process.off("SIGTERM", onSignal);
  }
}

main().catch((e: unknown) => {
  process.stderr.write(`bench failed: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
  process.exit(1);
});
