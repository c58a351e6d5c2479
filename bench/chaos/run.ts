/**
 * npm run chaos – crash testing of the production build on PostgreSQL.
 *
 * Clients create payments, each with its own Idempotency-Key, and repeat the same request on any
 * error or timeout, while the server is killed with SIGKILL every 2–5 s and restarted at once, and
 * PostgreSQL is stopped immediately once and started again. After everything settles, SQL and the
 * webhook receiver's log must show: at most one payment per key; every key answered with a 2xx has
 * its payment; one outcome event per payment in an outcome state; every event received; no event
 * for a rolled-back change. Then the delivery phase: a slow receiver, more events, kills while
 * deliveries are in flight; every delivery must still end delivered. Then the replay phase: a
 * window replay of thousands of events, asked for once without an Idempotency-Key, is cut off by a
 * kill; the restarted server must carry it on to its end, each event delivered once. Exit status 1
 * on any FAIL.
 *
 * PostgreSQL is a throwaway instance of its own (initdb into a temporary directory, port 5441),
 * never the machine's shared cluster; `--database-url` uses an existing database instead and
 * leaves out the PostgreSQL crash.
 *
 * The numbers: 80 % 263770000001 (succeeds), 8 % …02 (declines), 6 % …03 (never answers: expires),
 * 3 % …04 (the push times out: unknown, then reconciled), 3 % …06 (rejected at push).
 *
 * Options:
 *   --creates N        payments to create (default 1000; --quick 200)
 *   --seconds S        the creates are spread over at least S seconds (default 60; --quick 20)
 *   --concurrency N    concurrent clients (default 20)
 *   --seed S           seeds the kill times, the PostgreSQL crash and the mix of numbers (default 1)
 *   --quick            the CI variant: 200 creates, 4 kills, one PostgreSQL crash, 3 kills mid-delivery, a replay of 10,000 events cut off, < 5 minutes
 *   --database-url U   an existing database (migrated here); no PostgreSQL crash
 *   --pg-port P        port of the throwaway PostgreSQL (default 5441)
 *   --port P           port of next start (default 3320); the receiver listens on P + 1
 */
import { randomBytes } from "node:crypto";
import { appendFileSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import type { Sql } from "postgres";
import { ensureBuild, npm, ROOT, seed } from "../build";
import { connect } from "../db";
import { newId } from "@/server/domain/ids";
import { startServer, type Server } from "../server";
import { runClients, type ClientStats, type KeyResult, type Order } from "./clients";
import {
  everyAnsweredKeyHasItsPayment,
  everyDeliveryDelivered,
  everyEventReceived,
  windowReplayCarriedOn,
  everyKeyAnswered,
  noCustomerNumberLogged,
  noEventForRolledBackChange,
  oneOutcomeEventEach,
  onePaymentPerKey,
  type Check,
} from "./invariants";
import { createInstance, type Instance } from "./pg";
import { rng as seeded } from "./random";
import { startReceiver, type Receiver } from "./receiver";

const { values: args } = parseArgs({
  options: {
    creates: { type: "string" },
    seconds: { type: "string" },
    concurrency: { type: "string", default: "20" },
    seed: { type: "string", default: "1" },
    quick: { type: "boolean", default: false },
    "database-url": { type: "string" },
    "pg-port": { type: "string", default: "5441" },
    port: { type: "string", default: "3320" },
  },
  strict: true,
});

const QUICK = args.quick!;
const CREATES = Number(args.creates ?? (QUICK ? 200 : 1000));
const SECONDS = Number(args.seconds ?? (QUICK ? 20 : 60));
const CONCURRENCY = Number(args.concurrency);
const SEED = Number(args.seed);
const PORT = Number(args.port);
const RECEIVER_PORT = PORT + 1;
const PG_PORT = Number(args["pg-port"]);
/** Deliveries cut off by a kill are due again when their lease (60 s) ends: the settle waits that long and more. */
const SETTLE_PAYMENTS_S = 150;
const SETTLE_DELIVERIES_S = 180;
/** The shortest expiry a merchant may have (30 s): payments whose callback a kill lost resolve at expiry. */
const EXPIRY_SECONDS = 30;
const DELIVERY_PHASE_CREATES = QUICK ? 40 : 100;
const DELIVERY_PHASE_KILLS = QUICK ? 3 : 5;
/** The quick run stops killing after this many (a slow machine restarts slowly, and CI has a budget); the full run kills until the creates end. */
const CREATE_PHASE_MAX_KILLS = QUICK ? 4 : Number.POSITIVE_INFINITY;
const REQUEST_TIMEOUT_MS = 10_000;
/** Events in the window replayed in the replay phase: enough that the replay takes seconds, and a kill lands in it. */
const REPLAY_WINDOW_EVENTS = QUICK ? 10_000 : 30_000;
/** A replay cut off is carried on once its lease (30 s) runs out; then its deliveries go out. */
const SETTLE_REPLAY_S = 180;
/** A crashed request holds its key this long before a retry may take it over (default 15 s). */
const LOCK_TIMEOUT_MS = 5_000;

const say = (s: string) => process.stderr.write(`[chaos] ${s}\n`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const secs = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

for (const [name, v] of Object.entries({ creates: CREATES, seconds: SECONDS, concurrency: CONCURRENCY, seed: SEED, port: PORT, "pg-port": PG_PORT })) {
  if (!Number.isFinite(v) || v < 0 || (name !== "seed" && v === 0)) throw new Error(`--${name} must be a positive number`);
}

/** The mix of sandbox numbers: mostly success, some declines, expiries and push rejections. */
function pickNumber(r: number): string {
  if (r < 0.8) return "263770000001";
  if (r < 0.88) return "263770000002";
  if (r < 0.94) return "263770000003";
  if (r < 0.97) return "263770000004";
  return "263770000006";
}

type State = {
  instance?: Instance;
  server?: Server;
  receiver?: Receiver;
  sql?: Sql;
  /** Every server's output, kept for a run that failed. */
  serverLog: string;
  keepLog: boolean;
  cleaned: boolean;
};
const state: State = { serverLog: path.join(os.tmpdir(), `mari-chaos-${Date.now()}.log`), keepLog: true, cleaned: false };

function keepServerOutput(s: Server | undefined, why: string): void {
  if (s) appendFileSync(state.serverLog, `\n===== next start pid ${s.pid} (${why}) =====\n${s.output()}`);
}

/** Whatever ends the run (success, FAIL, an exception, Ctrl-C), the server, the receiver and the instance go. */
async function cleanup(): Promise<void> {
  if (state.cleaned) return;
  state.cleaned = true;
  keepServerOutput(state.server, "end of run");
  await state.server?.stop().catch(() => {});
  await state.receiver?.close().catch(() => {});
  await state.sql?.end({ timeout: 2 }).catch(() => {});
  state.instance?.remove();
  if (!state.keepLog) rmSync(state.serverLog, { force: true });
}

async function main(): Promise<number> {
  const started = Date.now();
  const rng = seeded(SEED);
  writeFileSync(state.serverLog, "");

  // ---- PostgreSQL ---------------------------------------------------------------------------
  let databaseUrl: string;
  if (args["database-url"]) {
    databaseUrl = args["database-url"];
    say(`database ${databaseUrl.replace(/\/\/([^:@/]+):[^@]*@/, "//$1:***@")} (given): the PostgreSQL crash is left out`);
  } else {
    const t = Date.now();
    state.instance = createInstance(PG_PORT);
    await state.instance.start();
    const admin = connect(state.instance.url, 1);
    await admin.unsafe("create database mari_chaos");
    await admin.end();
    databaseUrl = `postgres://postgres@127.0.0.1:${PG_PORT}/mari_chaos`;
    say(`throwaway PostgreSQL on port ${PG_PORT} in ${state.instance.dataDir} (${secs(Date.now() - t)})`);
  }
  const baseEnv: NodeJS.ProcessEnv = { ...process.env, DATABASE_URL: databaseUrl, LOG_LEVEL: "warn", BOOTSTRAP_DEMO: "false" };
  // Rate-limit counters in memory: Redis is not what this run is about.
  delete baseEnv.REDIS_URL;
  npm(["db:migrate"], baseEnv);
  ensureBuild(baseEnv, say);
  const merchant = seed(`chaos-${Date.now().toString(36)}`, baseEnv);
  const sql = (state.sql = connect(databaseUrl, 2));
  // Callbacks lost with a killed server are answered at expiry, when the provider is asked.
  await sql`update merchants set payment_expiry_seconds = ${EXPIRY_SECONDS} where id = ${merchant.merchant_id}`;

  const serverEnv: NodeJS.ProcessEnv = {
    ...baseEnv,
    NODE_ENV: "production",
    RATE_LIMIT_TEST_PER_SECOND: "1000000",
    RATE_LIMIT_LIVE_PER_SECOND: "1000000",
    WEBHOOK_ALLOW_PRIVATE_NETWORKS: "true",
    IDEMPOTENCY_LOCK_TIMEOUT_MS: String(LOCK_TIMEOUT_MS),
    // Within the lock on a create's key, as the server requires.
    PROVIDER_PUSH_TIMEOUT_MS: String(LOCK_TIMEOUT_MS - 2_000),
    NEXTAUTH_SECRET: process.env.NEXTAUTH_SECRET ?? randomBytes(32).toString("hex"),
    PUBLIC_BASE_URL: `http://127.0.0.1:${PORT}`,
  };
  state.receiver = await startReceiver(RECEIVER_PORT);
  state.server = await startServer(ROOT, PORT, serverEnv);
  const url = state.server.url;
  say(`next start on ${url} (pid ${state.server.pid}); receiver ${state.receiver.url}; server output goes to ${state.serverLog}`);

  const endpoint = await request(url, merchant.keys.test, "/v1/webhook_endpoints", { url: state.receiver.url, enabled_events: ["*"] }, "chaos-endpoint");
  say(`webhook endpoint ${String(endpoint.id)} for every event`);

  // ---- chaos: kills every 2–5 s, one PostgreSQL crash -----------------------------------------
  const crash = { kills: 0, restartMs: [] as number[], pgDownMs: 0, pgCrashes: 0, inFlightAtKill: [] as number[] };
  const killServer = async (why: string) => {
    const old = state.server!;
    try {
      process.kill(-old.pid, "SIGKILL");
    } catch {
      // already gone
    }
    await old.stop();
    keepServerOutput(old, why);
    crash.kills++;
    const t = Date.now();
    state.server = await startServer(ROOT, PORT, serverEnv);
    crash.restartMs.push(Date.now() - t);
  };
  const crashPostgres = async () => {
    const t = Date.now();
    await state.instance!.crash();
    await sleep(rng.between(2_000, 5_000));
    await state.instance!.start();
    crash.pgDownMs = Date.now() - t;
    crash.pgCrashes++;
    say(`PostgreSQL stopped immediately and started again: down ${secs(crash.pgDownMs)}`);
  };
  /** Kills until `done()`; the PostgreSQL crash comes once, at `pgAtMs` into the loop. */
  const chaos = async (done: () => boolean, pgAtMs: number | null) => {
    const t0 = Date.now();
    while (!done()) {
      const wait = rng.between(2_000, 5_000);
      const until = Date.now() + wait;
      while (!done() && Date.now() < until) await sleep(100);
      if (done()) break;
      if (pgAtMs !== null && crash.pgCrashes === 0 && Date.now() - t0 >= pgAtMs) await crashPostgres();
      else if (crash.kills < CREATE_PHASE_MAX_KILLS) await killServer("SIGKILL during creates");
      else if (pgAtMs === null || crash.pgCrashes > 0) break;
    }
  };

  // ---- phase 1: creates under chaos -----------------------------------------------------------
  const runTag = `${Date.now().toString(36)}-${SEED}`;
  const orders: Order[] = Array.from({ length: CREATES }, (_, i) => ({ key: `chaos-${runTag}-${i}`, msisdn: pickNumber(rng.next()), amount: 100 + Math.floor(rng.next() * 9_900) }));
  say(`creating ${CREATES} payments from ${CONCURRENCY} clients over ≥ ${SECONDS} s, killing the server every 2–5 s`);
  let clientsDone = false;
  const t1 = Date.now();
  const clients = runClients({
    url,
    apiKey: merchant.keys.test,
    orders,
    concurrency: CONCURRENCY,
    perSecond: CREATES / SECONDS,
    timeoutMs: REQUEST_TIMEOUT_MS,
    keyDeadlineMs: 240_000,
    rng: seeded(SEED + 1),
  }).finally(() => (clientsDone = true));
  await chaos(() => clientsDone, state.instance ? rng.between(0.3, 0.6) * SECONDS * 1000 : null);
  const { results, stats } = await clients;
  const createMs = Date.now() - t1;
  say(`creates done in ${secs(createMs)}: ${crash.kills} kills, ${stats.requests} requests, ${stats.retries} retries`);
  if (state.instance && crash.pgCrashes === 0) {
    // The creates ended before the crash's turn: it still happens, with the server up.
    await crashPostgres();
  }

  const checks: Check[] = [];
  const print = (c: Check) => {
    checks.push(c);
    process.stdout.write(`${c.pass ? "PASS" : "FAIL"}  ${c.name}: ${c.detail}\n`);
  };

  // ---- settle ---------------------------------------------------------------------------------
  const settle1 = Date.now();
  const paymentsSettled = await waitUntil(SETTLE_PAYMENTS_S, async () => {
    const [row] = await sql<{ n: number }[]>`
      select count(*)::int as n from payments where merchant_id = ${merchant.merchant_id} and status in ('awaiting_customer', 'unknown')`;
    return row!.n === 0;
  });
  const paymentsSettleMs = Date.now() - settle1;
  // The full run checks receipt here; the quick one at the end, so that the wait for deliveries
  // cut off by the kills (their lease is 60 s) happens once.
  const deliveriesSettled = QUICK ? null : await waitUntil(SETTLE_DELIVERIES_S - paymentsSettleMs / 1000, () => allDelivered(sql, merchant.merchant_id, state.receiver!));
  const settleMs = Date.now() - settle1;

  process.stdout.write(`\nPhase 1: ${CREATES} creates, ${CONCURRENCY} clients, seed ${SEED}${state.instance ? "" : " (given database: no PostgreSQL crash)"}\n`);
  process.stdout.write(figures(stats, results, crash, createMs));
  process.stdout.write(
    `  settle: payments ${paymentsSettled ? "settled" : "NOT settled"} in ${secs(paymentsSettleMs)}` +
      (deliveriesSettled === null ? "; deliveries checked after phase 2" : `; deliveries ${deliveriesSettled ? "settled" : "NOT settled"}, ${secs(settleMs)} in all`) +
      "\n",
  );
  print(everyKeyAnswered(results));
  print(await onePaymentPerKey(sql, merchant.merchant_id, results));
  print(await everyAnsweredKeyHasItsPayment(sql, merchant.merchant_id, results));
  print(await oneOutcomeEventEach(sql, merchant.merchant_id));
  if (!QUICK) print(await everyEventReceived(sql, merchant.merchant_id, (await state.receiver.dump()).received));
  print(await noEventForRolledBackChange(sql, merchant.merchant_id));

  // ---- phase 2: deliveries under kills -------------------------------------------------------
  await state.receiver.hold(1_000, 2_000);
  const before = await state.receiver.dump();
  const t2 = Date.now();
  const replay = await request(url, merchant.keys.test, "/v1/events/replay", { created_gte: new Date(started - 60_000).toISOString() }, `chaos-replay-${runTag}`);
  const extraOrders: Order[] = Array.from({ length: DELIVERY_PHASE_CREATES }, (_, i) => ({ key: `chaos-${runTag}-d${i}`, msisdn: "263770000001", amount: 500 }));
  const extra = runClients({
    url,
    apiKey: merchant.keys.test,
    orders: extraOrders,
    concurrency: CONCURRENCY,
    // Spread over the kills, so that new events keep deliveries in flight when each kill lands.
    perSecond: DELIVERY_PHASE_CREATES / (DELIVERY_PHASE_KILLS * 3.5),
    timeoutMs: REQUEST_TIMEOUT_MS,
    keyDeadlineMs: 240_000,
    rng: seeded(SEED + 2),
  });
  const replayed = `${String(replay.deliveries)} deliveries replayed${replay.status === "running" ? " so far (the server carries the rest on)" : ""}`;
  say(`phase 2: receiver holds each answer 1–2 s; ${replayed}, ${DELIVERY_PHASE_CREATES} more payments; ${DELIVERY_PHASE_KILLS} kills mid-delivery`);
  const kills0 = crash.kills;
  while (crash.kills - kills0 < DELIVERY_PHASE_KILLS) {
    await sleep(rng.between(2_000, 5_000));
    // Kill only while the receiver holds requests: the kill lands mid-delivery.
    const deadline = Date.now() + 5_000;
    let inFlight = (await state.receiver.dump()).inFlight;
    while (inFlight === 0 && Date.now() < deadline) {
      await sleep(100);
      inFlight = (await state.receiver.dump()).inFlight;
    }
    crash.inFlightAtKill.push(inFlight);
    await killServer("SIGKILL mid-delivery");
  }
  const extraResult = await extra;
  const settle2 = Date.now();
  const settled2 = await waitUntil(SETTLE_DELIVERIES_S, async () => {
    const [row] = await sql<{ n: number }[]>`
      select count(*)::int as n from payments where merchant_id = ${merchant.merchant_id} and status in ('awaiting_customer', 'unknown')`;
    return row!.n === 0 && (await allDelivered(sql, merchant.merchant_id, state.receiver!));
  });
  const settle2Ms = Date.now() - settle2;
  const after = await state.receiver.dump();
  const [counts] = await sql<{ deliveries: number; attempts: number }[]>`
    select (select count(*)::int from webhook_deliveries where merchant_id = ${merchant.merchant_id}) as deliveries,
      (select count(*)::int from webhook_attempts a join webhook_deliveries d on d.id = a.delivery_id where d.merchant_id = ${merchant.merchant_id}) as attempts`;

  process.stdout.write(`\nPhase 2: deliveries with a receiver that holds each answer 1–2 s\n`);
  process.stdout.write(
    `  ${replayed} + ${DELIVERY_PHASE_CREATES} new payments; ${crash.kills - kills0} kills, with ${crash.inFlightAtKill.join(", ")} requests held by the receiver at each\n` +
      `  receiver: ${after.total - before.total} requests in phase 2, ${after.total} in all; ${counts!.deliveries} deliveries, ${counts!.attempts} attempts recorded\n` +
      `  settle: ${settled2 ? "settled" : "NOT settled"} in ${secs(settle2Ms)}; phase 2 took ${secs(Date.now() - t2)}\n`,
  );
  print(everyKeyAnswered(extraResult.results));
  print(await onePaymentPerKey(sql, merchant.merchant_id, [...results, ...extraResult.results]));
  print(await everyAnsweredKeyHasItsPayment(sql, merchant.merchant_id, extraResult.results));
  print(await oneOutcomeEventEach(sql, merchant.merchant_id));
  print(await everyDeliveryDelivered(sql, merchant.merchant_id));
  print(await everyEventReceived(sql, merchant.merchant_id, after.received));
  print(await noEventForRolledBackChange(sql, merchant.merchant_id));

  // ---- phase 3: a window replay cut off by a kill ----------------------------------------------
  await state.receiver.hold(0, 0);
  const target = await request(url, merchant.keys.test, "/v1/webhook_endpoints", { url: state.receiver.url, enabled_events: ["payment.succeeded"] }, `chaos-replay-endpoint-${runTag}`);
  // A day before the run: a window that holds these events and no other.
  const windowStart = new Date(started - 86_400_000);
  await insertEvents(sql, merchant.merchant_id, windowStart, REPLAY_WINDOW_EVENTS);
  const t3 = Date.now();
  const window = { created_gte: windowStart.toISOString(), created_lt: new Date(windowStart.getTime() + REPLAY_WINDOW_EVENTS).toISOString(), endpoint: target.id };
  // Asked for once, without an Idempotency-Key: no retry will come to finish it.
  const cutOff = fetch(`${url}/v1/events/replay`, {
    method: "POST",
    headers: { authorization: `Bearer ${merchant.keys.test}`, "content-type": "application/json" },
    body: JSON.stringify(window),
  }).then(
    (res) => `answered ${res.status}`,
    () => "cut off",
  );
  const atKill = await progressOfReplay(sql, String(target.id));
  await killServer("SIGKILL mid-replay");
  const asker = await cutOff;
  const replaySettled = await waitUntil(SETTLE_REPLAY_S, async () => {
    const [row] = await sql<{ pending: number; running: number }[]>`
      select (select count(*)::int from webhook_deliveries where endpoint_id = ${String(target.id)} and status <> 'delivered') as pending,
        (select count(*)::int from event_replays where endpoint_id = ${String(target.id)} and status = 'running') as running`;
    return row!.pending === 0 && row!.running === 0;
  });
  process.stdout.write(`\nPhase 3: a window replay of ${REPLAY_WINDOW_EVENTS} events to one endpoint, killed half-way\n`);
  process.stdout.write(
    `  killed with ${atKill ? `${atKill.events} events queued` : "no progress seen"}; its request was ${asker}; ` +
      `settle: ${replaySettled ? "settled" : "NOT settled"} in ${secs(Date.now() - t3)} (the replay is carried on once its 30 s lease runs out)\n`,
  );
  print(await windowReplayCarriedOn(sql, { endpointId: String(target.id), events: REPLAY_WINDOW_EVENTS, atKill, received: (await state.receiver.dump()).received }));

  // The servers killed so far, then the one still running.
  print(noCustomerNumberLogged(readFileSync(state.serverLog, "utf8") + (state.server?.output() ?? ""), [...orders, ...extraOrders].map((o) => o.msisdn)));

  const failed = checks.filter((c) => !c.pass).length;
  process.stdout.write(
    `\n${checks.length - failed}/${checks.length} checks passed; ${crash.kills} server kills (restart p50 ${secs(median(crash.restartMs))}, max ${secs(Math.max(...crash.restartMs))}), ` +
      `${crash.pgCrashes} PostgreSQL crash${crash.pgCrashes === 1 ? "" : "es"}; ${secs(Date.now() - started)} in all\n`,
  );
  if (failed) process.stdout.write(`server output: ${state.serverLog}\n`);
  else state.keepLog = false;
  return failed ? 1 : 0;
}

function figures(stats: ClientStats, results: KeyResult[], crash: { kills: number; restartMs: number[]; pgDownMs: number; pgCrashes: number }, createMs: number): string {
  const byStatus: Record<string, number> = {};
  for (const r of results) if (r.paymentStatus) byStatus[r.paymentStatus] = (byStatus[r.paymentStatus] ?? 0) + 1;
  const replayed = results.filter((r) => r.replayed).length;
  const maxAttempts = Math.max(0, ...results.map((r) => r.attempts));
  return (
    `  requests ${stats.requests}, retries ${stats.retries} ${JSON.stringify(stats.why)}; answers replayed ${replayed}; most attempts for one key ${maxAttempts}\n` +
    `  payment status in the final answers ${JSON.stringify(byStatus)}\n` +
    `  server kills ${crash.kills} (restart p50 ${secs(median(crash.restartMs))}); PostgreSQL crash: ${crash.pgCrashes ? `down ${secs(crash.pgDownMs)}` : "none"}; creates took ${secs(createMs)}\n`
  );
}

function median(xs: number[]): number {
  if (xs.length === 0) return 0;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

async function allDelivered(sql: Sql, merchantId: string, receiver: Receiver): Promise<boolean> {
  const [row] = await sql<{ pending: number; outbox: number }[]>`
    select (select count(*)::int from webhook_deliveries where merchant_id = ${merchantId} and status <> 'delivered') as pending,
      (select count(*)::int from outbox) as outbox`;
  if (row!.pending > 0 || row!.outbox > 0) return false;
  const received = (await receiver.dump()).received;
  const events = await sql<{ id: string }[]>`select id from events where merchant_id = ${merchantId}`;
  return events.every((e) => received.has(e.id));
}

/** `n` payment.succeeded events of the merchant, a millisecond apart from `start`, written straight to the database. */
async function insertEvents(sql: Sql, merchantId: string, start: Date, n: number): Promise<void> {
  for (let i = 0; i < n; i += 5_000) {
    const rows = Array.from({ length: Math.min(5_000, n - i) }, (_, j) => {
      const at = new Date(start.getTime() + i + j);
      const objectId = newId("payment", at);
      return { id: newId("event", at), merchant_id: merchantId, livemode: false, type: "payment.succeeded", data: JSON.stringify({ object: { id: objectId, object: "payment" } }), object_id: objectId, created_at: at };
    });
    await sql`insert into events ${sql(rows)}`;
  }
}

/** The replay to the endpoint once it has queued some of its window (polled every 20 ms, for up to 60 s); null if none did. */
async function progressOfReplay(sql: Sql, endpointId: string): Promise<{ status: string; events: number } | null> {
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    const [row] = await sql<{ status: string; events: number }[]>`select status, events from event_replays where endpoint_id = ${endpointId}`;
    if (row && row.events > 0) return row;
    await sleep(20);
  }
  return null;
}

/** Polls `ok` every second (errors count as not yet) until it holds or `seconds` pass. */
async function waitUntil(seconds: number, ok: () => Promise<boolean>): Promise<boolean> {
  const deadline = Date.now() + seconds * 1000;
  for (;;) {
    if (await ok().catch(() => false)) return true;
    if (Date.now() > deadline) return false;
    await sleep(1_000);
  }
}

/** One POST, repeated with its Idempotency-Key through kills until it is answered for good. */
async function request(url: string, apiKey: string, pathname: string, body: unknown, key: string): Promise<Record<string, unknown>> {
  const deadline = Date.now() + 120_000;
  for (let attempt = 0; ; attempt++) {
    if (attempt > 0) await sleep(Math.min(2_000, 200 * attempt));
    try {
      const res = await fetch(`${url}${pathname}`, {
        method: "POST",
        headers: { authorization: `Bearer ${apiKey}`, "content-type": "application/json", "idempotency-key": key },
        body: JSON.stringify(body),
        signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
      });
      const text = await res.text();
      if (res.ok) return JSON.parse(text) as Record<string, unknown>;
      if (res.status < 500 && res.status !== 409 && res.status !== 429) throw new Error(`POST ${pathname}: ${res.status} ${text.slice(0, 300)}`);
    } catch (e) {
      if (e instanceof Error && e.message.startsWith("POST ")) throw e;
    }
    if (Date.now() > deadline) throw new Error(`POST ${pathname}: no answer in 120 s`);
  }
}

const onSignal = () => {
  say("interrupted: stopping the server and removing the PostgreSQL instance");
  void cleanup().finally(() => process.exit(130));
};
process.once("SIGINT", onSignal);
process.once("SIGTERM", onSignal);
// Last resort (process.exit elsewhere): the instance must not outlive the run.
process.on("exit", () => state.instance?.remove());

main()
  .then(async (code) => {
    await cleanup();
    process.exit(code);
  })
  .catch(async (e: unknown) => {
    say(`failed: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`);
    await cleanup();
    process.exit(2);
  });
