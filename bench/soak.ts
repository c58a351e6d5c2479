/**
 * Sustained mixed load: the API as a busy merchant uses it, for minutes on end, at 70 % of the
 * highest rate the server answers without errors.
 *
 * The mix, one fixed cycle of 20 requests (see CYCLE):
 *   20 % creates   POST /v1/payments; 9 in 10 to 263770000001 (the sandbox succeeds it by callback
 *                  a second later), 1 in 10 to 263770000002 (declined the same way)
 *   45 % polls     GET /v1/payments/{id} of one of the last RECENT payments created
 *   20 % lists     GET /v1/payments?limit=20 and GET /v1/events?limit=20, half each
 *   15 % callbacks POST /api/providers/sandbox/callback, signed as the sandbox signs: the very
 *                  callback the sandbox sends for a recent payment, either before the sandbox's own
 *                  (ours applies it, the sandbox's is the duplicate) or after it (ours is the duplicate)
 * and in the background, every payment's final event delivered to a live webhook receiver.
 *
 * Phases: a closed-loop run gives a first figure; the maximum is the highest of a few paced steps
 * below it that the server keeps pace with (see keptPace); creates alone until the server holds as
 * many idempotency records as it keeps, and requests for new payment paths until Next's cache of
 * paths is full (a server that has been up a while); the mix paced at 5 % of
 * the maximum is the unloaded baseline; then the soak, paced open loop at 70 %, measured per window (a minute in the
 * full run). The closed loop alone overstates the maximum: the work each create leaves behind (the
 * sandbox's callback a second later, the webhook delivery after it) can wait until its 20 s are
 * over, while a paced run has to keep up with it.
 * Verdicts: soak p99 ≤ 2 × unloaded p99; no memory growth (the server's RSS over the last two
 * windows is within 10 % of windows 2–4, after warm-up); no errors (any non-2xx, 429 included,
 * or a request without an answer); every event delivered to the receiver once the load stops.
 */
import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { monitorEventLoopDelay } from "node:perf_hooks";
import type { Sql } from "postgres";
import { newId } from "@/server/domain/ids";
import { signatureHeader } from "@/server/domain/signatures";
import { sandboxReference } from "@/server/providers/sandbox/client";
import { REMEMBERED_MAX } from "@/server/services/idempotency/remembered";
import { ROOT, type Seed } from "./build";
import { cpuWindow, descendants, mergeCpu, waitForQuiet, type CpuUse } from "./cpu";
import { clientPool, load, paced, summarize, type PacedRequest, type Samples } from "./load";
import type { Measured, Row } from "./report";
import { startServer, type Server } from "./server";
import { startReceiver, waitFor } from "./webhooks";

type Kind = "create" | "poll" | "list payments" | "list events" | "callback";
const KINDS: Kind[] = ["create", "poll", "list payments", "list events", "callback"];

/** c create, p poll, l list payments, e list events, k callback: 4 / 9 / 2 / 2 / 3 of 20, spread out. */
const CYCLE = "cpkplpcepkplpcepkpcp";
const BY_LETTER: Record<string, Kind> = { c: "create", p: "poll", l: "list payments", e: "list events", k: "callback" };

/** Polls and callbacks pick among this many of the newest payments. */
const RECENT = 200;
/** The sandbox answers a second after the push: a payment older than this has had its callback. */
const CALLBACK_ARRIVED_MS = 2_500;
const SUCCEEDS = "263770000001";
const DECLINES = "263770000002";
const CALLBACK_PATH = "/api/providers/sandbox/callback";
const declines = (create: number) => create % 10 === 9;

const MAX_FRACTION = 0.7;
/** The maximum's paced steps: the first at the closed-loop figure (this share of it), each next one this much lower. */
const FIRST_STEP = 1;
const STEP_FACTOR = 0.92;
const MAX_STEPS = 8;
const STEP_SECONDS = 20;
/**
 * Keeping pace: the requests due in a step's second half are answered in a median of at most this
 * (a server behind the rate queues them: its median grows to seconds, and one that fell behind
 * at the step's start and answers no faster than the rate keeps a standing queue), …
 */
const PACE_P50_MS = 50;
/** … from 40 % to 90 % of the step, answers arrive at no less than this share of the rate, … */
const PACE_SHARE = 0.97;
/** … every event committed more than this before the step's end has reached the receiver by then, and no request failed. */
const DELIVERY_GRACE_MS = 3_000;
const BASELINE_FRACTION = 0.05;
const PACED_SOCKETS = 64;
const RSS_SAMPLE_MS = 5_000;
/** The memory verdict: windows 2–4 (after warm-up) against the last two. */
const RSS_GROWTH_LIMIT = 1.1;
const P99_LIMIT = 2;

export type SoakOptions = {
  server: Server;
  /** The secret the server's sandbox verifies callbacks with. */
  callbackSecret: string;
  sql: Sql;
  merchant: Seed;
  say: (s: string) => void;
  /** Soak length (BENCH_SOAK_SECONDS, default 600). */
  seconds?: number;
  /** The unloaded baseline's length (default: 60 s, longer at a low rate so that its p99 rests on 600 answers, at most 180 s). */
  baselineSeconds?: number;
  /** The closed-loop maximum's length (default 20), after a warm-up of a quarter of it. */
  maxSeconds?: number;
  /** Connections of the closed-loop maximum (default 16). */
  connections?: number;
  /** How long deliveries may take to catch up once the load stops (default 60). */
  drainSeconds?: number;
  /** Longest wait for the machine to go quiet before measuring (default 120). */
  quietWaitSeconds?: number;
  /**
   * Soak at this rate instead of 70 % of the maximum (BENCH_SOAK_RATE): to compare two builds at
   * one load. The baseline stays at 5 % of the measured maximum; the verdicts are the same.
   */
  rate?: number;
};

/**
 * Next 16's cache of where a request's path is among the app's files (setupFsCheck in
 * next/dist/server/lib/router-utils/filesystem.js): at most 8 MiB, counted as 128 bytes and the
 * path's length per entry.
 */
const NEXT_PATH_CACHE_BYTES = 8 * 1024 * 1024;
const NEXT_PATH_ENTRY_BYTES = 128;

/** The path of a payment nobody has asked for: a real id's length, random. */
function unknownPaymentPath(): string {
  return `/v1/payments/${newId("payment")}`;
}

type Created = { id: string; charged: number; currency: string; status: "SUCCESS" | "INSUFFICIENT_FUNDS"; at: number };

/** Latencies and failures of one stretch of the mix, by kind. */
class Tally {
  readonly latencies = new Map<Kind, number[]>(KINDS.map((k) => [k, []]));
  readonly failures = new Map<Kind, Record<string, number>>(KINDS.map((k) => [k, {}]));
  /** The first few failed answers, to tell what went wrong. */
  readonly examples: string[] = [];

  ok(kind: Kind, ms: number): void {
    this.latencies.get(kind)!.push(ms);
  }

  fail(kind: Kind, what: string, body = ""): void {
    const f = this.failures.get(kind)!;
    f[what] = (f[what] ?? 0) + 1;
    if (this.examples.length < 5) this.examples.push(`${kind} ${what} ${body.slice(0, 300)}`.trim());
  }

  errors(kind?: Kind): number {
    return (kind ? [kind] : KINDS).reduce((n, k) => n + Object.values(this.failures.get(k)!).reduce((a, b) => a + b, 0), 0);
  }

  all(): number[] {
    return KINDS.flatMap((k) => this.latencies.get(k)!);
  }

  static merge(tallies: Tally[]): Tally {
    const t = new Tally();
    for (const x of tallies) {
      for (const k of KINDS) {
        t.latencies.get(k)!.push(...x.latencies.get(k)!);
        for (const [what, n] of Object.entries(x.failures.get(k)!)) t.failures.get(k)![what] = (t.failures.get(k)![what] ?? 0) + n;
      }
      t.examples.push(...x.examples.slice(0, 5 - t.examples.length));
    }
    return t;
  }
}

function pct(values: number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

/**
 * The request generator. It keeps the newest payments it created, so that polls and callbacks
 * are about real, recent payments; until the first create has answered, those slots create.
 */
export class Mix {
  private slot = 0;
  private creates = 0;
  private callbacks = 0;
  private readonly recent: Created[] = [];
  private readonly run = randomBytes(4).toString("hex");
  tally = new Tally();

  private readonly auth: { authorization: string };

  constructor(
    apiKey: string,
    private readonly callbackSecret: string,
  ) {
    this.auth = { authorization: `Bearer ${apiKey}` };
  }

  next(): PacedRequest {
    let kind = BY_LETTER[CYCLE[this.slot++ % CYCLE.length]!]!;
    if ((kind === "poll" || kind === "callback") && this.recent.length === 0) kind = "create";
    switch (kind) {
      case "create":
        return this.create();
      case "poll":
        return { kind, method: "GET", path: `/v1/payments/${this.pick().id}`, headers: this.auth };
      case "list payments":
        return { kind, method: "GET", path: "/v1/payments?limit=20", headers: this.auth };
      case "list events":
        return { kind, method: "GET", path: "/v1/events?limit=20", headers: this.auth };
      case "callback":
        return { kind, method: "POST", path: CALLBACK_PATH, ...this.callback() };
    }
  }

  /** The mix's next create, as `next()` sends them. */
  create(): PacedRequest {
    const i = this.creates++;
    const key = `soak-${this.run}-${i}`;
    const body = JSON.stringify({
      amount: 100 + ((i * 37) % 90_000),
      currency: "USD",
      method: "wallet",
      reference: key,
      customer: { msisdn: declines(i) ? DECLINES : SUCCEEDS },
    });
    const headers = { ...this.auth, "content-type": "application/json", "idempotency-key": key };
    return { kind: "create", method: "POST", path: "/v1/payments", headers, body };
  }

  /** Creates sent so far, by every phase. */
  get createsSent(): number {
    return this.creates;
  }

  /** Every other callback races the sandbox's own (the newest payment); the rest repeat one that arrived. */
  private callback(): { headers: Record<string, string>; body: string } {
    const early = this.callbacks++ % 2 === 0;
    const arrivedBefore = performance.now() - CALLBACK_ARRIVED_MS;
    const p = early ? this.recent.at(-1)! : (this.recent.findLast((c) => c.at <= arrivedBefore) ?? this.recent[0]!);
    // The body the sandbox sends (SandboxProvider.scheduleCallbacks): the push's idempotency key is the payment id.
    const body = JSON.stringify({
      event_id: `sbx_evt_${sandboxReference(`${p.id}:${p.status}`)}`,
      merchant_tx_id: p.id,
      transaction_ref: sandboxReference(p.id),
      amount: p.charged,
      currency: p.currency,
      status: p.status,
    });
    const signature = signatureHeader([this.callbackSecret], Math.floor(Date.now() / 1000), body);
    return { headers: { "content-type": "application/json", "sandbox-signature": signature }, body };
  }

  private pick(): Created {
    return this.recent[Math.floor(Math.random() * this.recent.length)]!;
  }

  /** Notes an answer; a created payment joins the recent ones. */
  observe(kind: Kind, status: number, body: string, ms: number | null): void {
    if (status < 200 || status >= 300) {
      this.tally.fail(kind, String(status), body);
      return;
    }
    if (ms !== null) this.tally.ok(kind, ms);
    if (kind !== "create") return;
    const p = JSON.parse(body) as { id: string; charged_amount: number; currency: string; reference: string };
    // The reference carries the create's number: every tenth went to the declining wallet.
    const i = Number(p.reference.slice(p.reference.lastIndexOf("-") + 1));
    this.recent.push({ id: p.id, charged: p.charged_amount, currency: p.currency, status: declines(i) ? "INSUFFICIENT_FUNDS" : "SUCCESS", at: performance.now() });
    if (this.recent.length > RECENT) this.recent.shift();
  }

  /** No answer: "timeout" (none within 30 s), or how the connection failed (ECONNRESET: closed under the request). */
  transportError(kind: Kind, reason: string): void {
    this.tally.fail(kind, `no answer (${reason})`);
  }
}

/** Resident memory of the server's process tree, in MB (next start may fork workers). */
export function treeRssMb(pid: number): number {
  let kb = 0;
  for (const p of descendants(pid)) {
    try {
      const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${p}/status`, "utf8"));
      if (m) kb += Number(m[1]);
    } catch {
      // exited
    }
  }
  return kb / 1024;
}

async function ourBackends(sql: Sql): Promise<number[]> {
  const rows = await sql<{ pid: number }[]>`select pid from pg_stat_activity where datname = current_database()`;
  return rows.map((r) => r.pid);
}

/**
 * Starts `next start` for the soak: the sandbox answers at its normal speed (a callback a second
 * after each push), per-key limits are out of the way (a 429 would count as an error), webhooks may
 * go to the receiver on 127.0.0.1, and callbacks are signed with a secret made for this run.
 */
export async function startSoakServer(port: number, env: NodeJS.ProcessEnv): Promise<{ server: Server; callbackSecret: string }> {
  const callbackSecret = randomBytes(24).toString("hex");
  const server = await startServer(ROOT, port, {
    ...env,
    NODE_ENV: "production",
    LOG_LEVEL: "warn",
    RATE_LIMIT_TEST_PER_SECOND: "1000000",
    RATE_LIMIT_LIVE_PER_SECOND: "1000000",
    SANDBOX_DELAY_SCALE: "1",
    SANDBOX_CALLBACK_SECRET: callbackSecret,
    WEBHOOK_ALLOW_PRIVATE_NETWORKS: "true",
  });
  return { server, callbackSecret };
}

/** One paced step of the search for the maximum. */
type Step = { rate: number; r: Measured; lateEvents: number; errors: number } & StepVerdict;

/** A 2xx answer in a step: when its request was due and when it came, in ms from the step's start. */
export type Answer = { due: number; at: number };
export type StepVerdict = { pace: number; secondHalfP50: number; keptPace: boolean };

/**
 * Did the server keep pace with a step at `rate` lasting `stepMs`? `pace`: answers that came from
 * 40 % to 90 % of the step per second, as a share of the rate (a server behind the rate answers at
 * its own, lower one); `secondHalfP50`: the median latency of the requests due in the second half
 * (it grows without end behind the rate, and stays high with a standing queue).
 */
export function judgeStep(answers: Answer[], stepMs: number, rate: number, lateEvents: number, errors: number): StepVerdict {
  const from = 0.4 * stepMs;
  const to = 0.9 * stepMs;
  const pace = answers.filter((a) => a.at >= from && a.at < to).length / (((to - from) / 1000) * rate);
  const secondHalfP50 = pct(
    answers.filter((a) => a.due >= stepMs / 2).map((a) => a.at - a.due),
    50,
  );
  return { pace, secondHalfP50, keptPace: errors === 0 && lateEvents === 0 && secondHalfP50 <= PACE_P50_MS && pace >= PACE_SHARE };
}

/** The soak merchant starts empty: its events and deliveries are this run's alone. */
async function resetMerchant(sql: Sql, merchantId: string): Promise<void> {
  await sql`delete from webhook_attempts where delivery_id in (select id from webhook_deliveries where merchant_id = ${merchantId})`;
  await sql`delete from webhook_deliveries where merchant_id = ${merchantId}`;
  await sql`delete from events where merchant_id = ${merchantId}`;
  await sql`delete from webhook_endpoints where merchant_id = ${merchantId}`;
  await sql`delete from provider_callbacks where payment_id in (select id from payments where merchant_id = ${merchantId})`;
  await sql`delete from idempotency_keys where merchant_id = ${merchantId}`;
  await sql`delete from payments where merchant_id = ${merchantId}`;
}

export type SoakWindow = {
  index: number;
  startedAt: number;
  seconds: number;
  rps: number;
  p50: number;
  p99: number;
  errors: number;
  rssMb: number;
  rssMaxMb: number;
  events: number;
  received: number;
  cpu: CpuUse;
  /**
   * The load generator's own event-loop delay, p99 in ms: how late this process may have been to
   * send a request or to see its answer. Latencies count from when each request was due, so this
   * much of a window's p99 may be the generator's and not the server's.
   */
  generatorDelayP99: number;
  /** Connections the load generator's keep-alive pool opened in the window. */
  connectionsOpened: number;
};

export type SoakReport = { rows: Row[]; lines: string[]; details: Record<string, unknown> };

export async function runSoak(opts: SoakOptions): Promise<SoakReport> {
  const { server, sql, merchant, say } = opts;
  const seconds = opts.seconds ?? 600;
  const maxSeconds = opts.maxSeconds ?? 20;
  const connections = opts.connections ?? 16;
  const drainSeconds = opts.drainSeconds ?? 60;
  const quietWait = opts.quietWaitSeconds ?? 120;
  // A minute per window in the full run; a shorter try still gets ten.
  const windowSeconds = Math.max(5, Math.min(60, seconds / 10));
  const windows = Math.max(1, Math.round(seconds / windowSeconds));

  await resetMerchant(sql, merchant.merchant_id);
  const receiver = await startReceiver();
  // One keep-alive pool for every paced phase, as a merchant's client keeps one: a busy node server
  // accepts one new connection per turn of its event loop, so a pool opened anew for each window
  // would add that wait to the first requests of every window.
  const client = clientPool(PACED_SOCKETS);
  try {
    const res = await fetch(`${server.url}/v1/webhook_endpoints`, {
      method: "POST",
      headers: { authorization: `Bearer ${merchant.keys.test}`, "content-type": "application/json" },
      body: JSON.stringify({ url: receiver.url, enabled_events: ["*"] }),
    });
    if (res.status !== 201) throw new Error(`webhook endpoint: expected 201, got ${res.status}: ${await res.text()}`);

    const mix = new Mix(merchant.keys.test, opts.callbackSecret);
    const eventCount = async () => {
      const [row] = await sql<{ n: number }[]>`select count(*)::int as n from events where merchant_id = ${merchant.merchant_id}`;
      return row!.n;
    };
    const backlog = async () => {
      await receiver.refresh();
      return (await eventCount()) - receiver.received.size;
    };
    const awaiting = async () => {
      const [row] = await sql<{ n: number }[]>`
        select count(*)::int as n from payments where merchant_id = ${merchant.merchant_id} and status = 'awaiting_customer'`;
      return row!.n;
    };
    /**
     * Until every payment has its answer (the sandbox calls back a second after the push, so the
     * last events are committed after the load stops) and every event has reached the receiver.
     */
    const drain = (limitS: number) => waitFor(async () => (await awaiting()) === 0 && (await backlog()) <= 0, limitS * 1000);
    /** `onAnswer` hears each 2xx answer's latency, counted from when its request was due. */
    const pacedRun = (rate: number, s: number, onAnswer?: (ms: number) => void, next = () => mix.next()) =>
      paced({
        url: server.url,
        rate,
        seconds: s,
        agent: client,
        maxSockets: PACED_SOCKETS,
        next,
        onResponse: (status, body, ms, req) => {
          if (status >= 200 && status < 300) onAnswer?.(ms);
          mix.observe(req.kind as Kind, status, body, ms);
        },
        onError: (req, reason) => mix.transportError(req.kind as Kind, reason),
      });
    /** Events committed in [from, before) that have not reached the receiver. */
    const notReceived = async (from: number, before: number) => {
      await receiver.refresh();
      const rows = await sql<{ id: string }[]>`
        select id from events where merchant_id = ${merchant.merchant_id} and created_at >= ${new Date(from)} and created_at < ${new Date(before)}`;
      return rows.filter((e) => !receiver.received.has(e.id)).length;
    };
    /** The mix paced at `rate` for STEP_SECONDS: did the server keep pace? */
    const paceStep = async (rate: number): Promise<Step> => {
      mix.tally = new Tally();
      const own = await ours();
      const window = cpuWindow(() => own, server.pid);
      const answers: Answer[] = [];
      const startedAt = Date.now();
      const t0 = performance.now();
      const stepMs = STEP_SECONDS * 1000;
      // Deliveries are judged at the step's end, not after its stragglers have been answered.
      const late = new Promise<number>((resolve, reject) =>
        setTimeout(() => notReceived(startedAt, startedAt + stepMs - DELIVERY_GRACE_MS).then(resolve, reject), stepMs),
      );
      const samples = await pacedRun(rate, STEP_SECONDS, (ms) => {
        const at = performance.now() - t0;
        answers.push({ due: at - ms, at });
      });
      const cpu = window.end(() => own);
      const lateEvents = await late;
      const errors = mix.tally.errors();
      for (const e of mix.tally.examples) say(`soak: step at ${rate} req/s, failed: ${e}`);
      return { rate, r: { ...summarize([samples], PACED_SOCKETS), cpu }, lateEvents, errors, ...judgeStep(answers, stepMs, rate, lateEvents, errors) };
    };
    const ours = async () => [...descendants(server.pid), ...descendants(process.pid).filter((p) => p !== process.pid), ...(await ourBackends(sql))];

    // ---- maximum: first the mix closed loop, then paced steps below it ---------------------------
    const closedLoop = (c: number, s: number) =>
      load({
        url: server.url,
        connections: c,
        seconds: s,
        requests: [
          {
            method: "GET",
            path: "/",
            setupRequest: (req, context) => {
              const r = mix.next();
              context.kind = r.kind;
              return { ...req, method: r.method, path: r.path, headers: r.headers, body: r.body };
            },
            onResponse: (status, body, context) => mix.observe(context.kind as Kind, status, body, null),
          },
        ],
      });
    await waitForQuiet(say, 0.25, quietWait);
    say(`soak: warm-up, the mix closed loop at ${connections} connections for ${Math.ceil(maxSeconds / 4)} s`);
    await closedLoop(connections, Math.ceil(maxSeconds / 4));
    await drain(drainSeconds);
    let maxConnections = connections;
    let maxR: Measured | undefined;
    for (let attempt = 0; attempt < 3; attempt++) {
      await waitForQuiet(say, 0.25, quietWait);
      say(`soak: maximum, the mix closed loop at ${maxConnections} connections for ${maxSeconds} s`);
      mix.tally = new Tally();
      const own = await ours();
      const window = cpuWindow(() => own, server.pid);
      const samples: Samples = await closedLoop(maxConnections, maxSeconds);
      const cpu = window.end(() => own);
      maxR = { ...summarize([samples], maxConnections), cpu };
      say(
        `soak: closed loop ${maxR.rps.toFixed(0)} req/s at ${maxConnections} connections, ${JSON.stringify(maxR.statuses)}, transport errors ${samples.transportErrors}, ` +
          `server's main thread ${pctOf(cpu.loop)}`,
      );
      await drain(drainSeconds);
      for (const e of mix.tally.examples) say(`soak: maximum, failed: ${e}`);
      if (maxR.failures === 0 || maxConnections <= 2) break;
      // Errors at this concurrency: the maximum is below it.
      maxConnections = Math.floor(maxConnections / 2);
    }
    const closed = maxR!;
    const steps: Step[] = [];
    for (let rate = Math.round(closed.rps * FIRST_STEP); steps.length < MAX_STEPS && !steps.at(-1)?.keptPace; rate = Math.max(1, Math.round(rate * STEP_FACTOR))) {
      await waitForQuiet(say, 0.25, quietWait);
      say(`soak: maximum, the mix paced at ${rate} req/s for ${STEP_SECONDS} s`);
      const step = await paceStep(rate);
      steps.push(step);
      say(`soak: ${stepLine(step)}`);
      await drain(drainSeconds);
    }
    // Without a step that kept pace, the lowest one tried stands in (and says so in the table).
    const top = steps.find((s) => s.keptPace) ?? steps.at(-1)!;
    const soakRate = opts.rate ?? Math.max(1, Math.round(top.rate * MAX_FRACTION));
    const baselineRate = Math.max(2, Math.round(top.rate * BASELINE_FRACTION));
    const baselineSeconds = opts.baselineSeconds ?? Math.min(180, Math.max(60, Math.ceil(600 / baselineRate)));

    // ---- fill: the memory the server bounds, full before memory is measured ----------------------
    // Each process keeps up to REMEMBERED_MAX completed idempotency records (about 12 MB). A server
    // that has been up a while holds that many; a soak that fills them would read the filling as
    // growth. So, creates alone until this server has answered that many, at half the soak's rate.
    const toFill = REMEMBERED_MAX - mix.createsSent;
    if (toFill > 0) {
      const fillRate = Math.max(10, Math.round(soakRate / 2));
      await waitForQuiet(say, 0.25, quietWait);
      say(`soak: fill, ${toFill.toLocaleString("en")} creates at ${fillRate} req/s, so that the server holds ${REMEMBERED_MAX.toLocaleString("en")} idempotency records`);
      mix.tally = new Tally();
      await pacedRun(fillRate, Math.ceil(toFill / fillRate), undefined, () => mix.create());
      for (const e of mix.tally.examples) say(`soak: fill, failed: ${e}`);
      await drain(drainSeconds);
    }

    // Next looks for every request's path among the app's files first, and keeps what it found
    // (here: nothing) per path, up to NEXT_PATH_CACHE_BYTES of its own accounting. Each poll is of a
    // payment's own path, so the soak's polls fill that cache for as long as it runs at most rates
    // (about 49,000 payment paths: 10 minutes of polls at 400 req/s), and a soak would read the
    // filling as growth (bench/HISTORY.md, "The soak's growing memory"). So, that many paths of
    // payments that do not exist, without a key: 401s, answered before any query.
    const pathsToFill = Math.ceil(NEXT_PATH_CACHE_BYTES / (NEXT_PATH_ENTRY_BYTES + unknownPaymentPath().length));
    {
      const fillRate = Math.max(20, top.rate);
      await waitForQuiet(say, 0.25, quietWait);
      say(`soak: fill, ${pathsToFill.toLocaleString("en")} requests for payment paths not seen before at ${fillRate} req/s, so that Next's cache of paths is full`);
      const filled = await paced({
        url: server.url,
        rate: fillRate,
        seconds: Math.ceil(pathsToFill / fillRate),
        agent: client,
        maxSockets: PACED_SOCKETS,
        next: () => ({ method: "GET", path: unknownPaymentPath(), headers: {} }),
      });
      const other = Object.entries(filled.statuses).filter(([status]) => status !== "401");
      if (other.length > 0 || filled.transportErrors > 0) say(`soak: fill, answers other than 401: ${JSON.stringify(Object.fromEntries(other))}, transport errors ${filled.transportErrors}`);
      await drain(drainSeconds);
    }

    // ---- unloaded baseline ----------------------------------------------------------------------
    await waitForQuiet(say, 0.25, quietWait);
    say(`soak: unloaded baseline, the mix paced at ${baselineRate} req/s for ${baselineSeconds} s`);
    mix.tally = new Tally();
    const baseOwn = await ours();
    const baseWindow = cpuWindow(() => baseOwn, server.pid);
    const baseSamples = await pacedRun(baselineRate, baselineSeconds);
    const baseCpu = baseWindow.end(() => baseOwn);
    const baseline = mix.tally;
    const baseR: Measured = { ...summarize([baseSamples], PACED_SOCKETS), cpu: baseCpu };
    await drain(drainSeconds);

    // ---- the soak -------------------------------------------------------------------------------
    await waitForQuiet(say, 0.25, quietWait);
    say(`soak: the mix paced at ${soakRate} req/s for ${seconds} s, ${windows} windows of ${windowSeconds} s`);
    const soakStart = Date.now();
    const series: SoakWindow[] = [];
    const tallies: Tally[] = [];
    const allSamples: Samples[] = [];
    const cpus: CpuUse[] = [];
    let rss: number[] = [];
    const sampler = setInterval(() => rss.push(treeRssMb(server.pid)), RSS_SAMPLE_MS);
    try {
      for (let w = 0; w < windows; w++) {
        mix.tally = new Tally();
        rss = [treeRssMb(server.pid)];
        const own = await ours();
        const window = cpuWindow(() => own, server.pid);
        const startedAt = Date.now();
        const delay = monitorEventLoopDelay({ resolution: 1 });
        delay.enable();
        const samples = await pacedRun(soakRate, windowSeconds);
        delay.disable();
        const cpu = window.end(() => own);
        rss.push(treeRssMb(server.pid));
        await receiver.refresh();
        const events = await eventCount();
        const t = mix.tally;
        const all = t.all();
        const win: SoakWindow = {
          index: w + 1,
          startedAt,
          seconds: windowSeconds,
          rps: all.length / windowSeconds,
          p50: pct(all, 50),
          p99: pct(all, 99),
          errors: t.errors(),
          rssMb: rss.reduce((a, b) => a + b, 0) / rss.length,
          rssMaxMb: Math.max(...rss),
          events,
          received: receiver.received.size,
          cpu,
          generatorDelayP99: delay.percentile(99) / 1e6,
          connectionsOpened: samples.opened ?? 0,
        };
        series.push(win);
        tallies.push(t);
        allSamples.push(samples);
        cpus.push(cpu);
        say(
          `soak ${win.index}/${windows}: ${win.rps.toFixed(0)} req/s, p50 ${win.p50.toFixed(1)} ms, p99 ${win.p99.toFixed(1)} ms, errors ${win.errors}, ` +
            `RSS ${win.rssMb.toFixed(0)} MB, events ${events} received ${win.received}, cores other ${cpu.coresOther.toFixed(2)}, server's main thread ${pctOf(cpu.loop)}, ` +
            `generator's loop delay p99 ${win.generatorDelayP99.toFixed(1)} ms, new connections ${win.connectionsOpened}`,
        );
      }
    } finally {
      clearInterval(sampler);
    }
    const loadEnded = Date.now();
    const drained = await drain(drainSeconds);
    const drainMs = Date.now() - loadEnded;

    // ---- figures and verdicts -------------------------------------------------------------------
    const soakTally = Tally.merge(tallies);
    const soakR: Measured = { ...summarize(allSamples, PACED_SOCKETS), cpu: mergeCpu(cpus) };
    const soakErrors = soakR.failures;
    const p99Ratio = soakR.p99 / baseR.p99;

    const rssRef = series.length >= 6 ? mean(series.slice(1, 4).map((w) => w.rssMb)) : Number.NaN;
    const rssLast = series.length >= 6 ? mean(series.slice(-2).map((w) => w.rssMb)) : Number.NaN;
    const rssRatio = rssLast / rssRef;

    const events = await sql<{ id: string; at: Date }[]>`
      select id, created_at as at from events where merchant_id = ${merchant.merchant_id} and created_at >= ${new Date(soakStart)}`;
    const lags = events.flatMap((e) => (receiver.received.has(e.id) ? [receiver.received.get(e.id)! - e.at.getTime()] : []));
    const missing = events.length - lags.length;
    const [totals] = await sql<{ events: number }[]>`select count(*)::int as events from events where merchant_id = ${merchant.merchant_id}`;
    const undelivered = totals!.events - [...receiver.received.keys()].length;
    const windowLag = (w: SoakWindow) => {
      const end = w.startedAt + w.seconds * 1000;
      return pct(
        events.filter((e) => e.at.getTime() >= w.startedAt && e.at.getTime() < end && receiver.received.has(e.id)).map((e) => receiver.received.get(e.id)! - e.at.getTime()),
        99,
      );
    };

    const x = (v: number) => `${v.toFixed(2)}×`;
    const mins = seconds >= 120 ? `${(seconds / 60).toFixed(0)} min` : `${seconds} s`;
    const nan = { p50: Number.NaN, p99: Number.NaN, max: Number.NaN };
    const rows: Row[] = [
      {
        phase: `soak: the mix closed loop (${maxSeconds} s)`,
        connections: maxConnections,
        r: closed,
        ratio: "–",
        target: "none (where the steps start)",
        pass: null,
      },
      {
        phase: top.keptPace
          ? `soak: maximum, the highest paced rate kept up with (steps of ${STEP_SECONDS} s)`
          : `soak: maximum NOT FOUND: no step kept pace; the lowest (${STEP_SECONDS} s) stands in`,
        connections: PACED_SOCKETS,
        r: top.r,
        ratio: `${x(top.rate / closed.rps)} closed loop`,
        target: "none (sets the rates below)",
        pass: top.keptPace ? null : false,
      },
      {
        phase: `soak: unloaded, the mix at ${baselineRate} req/s (5 % of max, ${baselineSeconds} s)`,
        connections: PACED_SOCKETS,
        r: baseR,
        ratio: "1.00× (p99)",
        target: "–",
        pass: null,
      },
      {
        phase: `soak: the mix at ${soakRate} req/s (${opts.rate ? `${((100 * soakRate) / top.rate).toFixed(0)} % of max, set by BENCH_SOAK_RATE` : "70 % of max"}) for ${mins}`,
        connections: PACED_SOCKETS,
        r: soakR,
        ratio: `${x(p99Ratio)} unloaded (p99)`,
        target: `p99 ≤ ${P99_LIMIT}× unloaded, 0 errors`,
        pass: p99Ratio <= P99_LIMIT && soakErrors === 0,
      },
      {
        phase: `soak: server RSS ${rssRef.toFixed(0)} → ${rssLast.toFixed(0)} MB (windows 2–4 → last 2)`,
        connections: 0,
        r: { ...soakR, ...nan, failures: 0 },
        ratio: Number.isFinite(rssRatio) ? x(rssRatio) : "–",
        target: `≤ ${RSS_GROWTH_LIMIT.toFixed(2)}×`,
        pass: Number.isFinite(rssRatio) ? rssRatio <= RSS_GROWTH_LIMIT : null,
      },
      {
        phase: `soak: webhooks, ${lags.length.toLocaleString("en")} of ${events.length.toLocaleString("en")} events received (drained in ${(drainMs / 1000).toFixed(1)} s)`,
        connections: 0,
        // Lag (receipt − created_at) in the latency columns; "req/s" is events per second of the soak.
        r: { ...soakR, rps: events.length / seconds, p50: pct(lags, 50), p99: pct(lags, 99), max: lags.length ? lags.reduce((a, b) => Math.max(a, b), 0) : Number.NaN, failures: missing },
        ratio: "–",
        target: `all received ≤ ${drainSeconds} s after`,
        pass: drained && missing === 0 && undelivered <= 0,
      },
    ];

    const f = (ms: number) => (Number.isFinite(ms) ? `${ms < 10 ? ms.toFixed(1) : ms.toFixed(0)} ms` : "–");
    const kindLine = (k: Kind) => {
      const b = baseline.latencies.get(k)!;
      const s = soakTally.latencies.get(k)!;
      return `  ${k.padEnd(14)} ${String(b.length).padStart(6)} ${f(pct(b, 50)).padStart(8)} ${f(pct(b, 99)).padStart(8)}   ${String(s.length).padStart(7)} ${f(pct(s, 50)).padStart(8)} ${f(pct(s, 99)).padStart(8)} ${String(soakTally.errors(k)).padStart(7)}`;
    };
    const head = "  window  start     req/s      p50      p99  errors  RSS MB (max)  events  received  backlog  lag p99  cores busy/bench/other  main thread  gen delay p99  new conns";
    const lines = [
      `Sustained mixed load: ${CYCLE.length}-request cycle of 20 % creates (1 in 10 declined), 45 % polls, 10 % payment lists, 10 % event lists, 15 % signed callbacks; ` +
        `webhook deliveries in the background. Maximum ${top.rate} req/s (closed loop ${closed.rps.toFixed(0)} req/s at ${maxConnections} connections); soak ${soakRate} req/s for ${seconds} s, baseline ${baselineRate} req/s.`,
      `The maximum, paced steps of ${STEP_SECONDS} s (kept pace: the second half's median answer ≤ ${PACE_P50_MS} ms, answers from 40 % to 90 % of the step ≥ ${PACE_SHARE * 100} % of the rate, ` +
        `every event older than ${DELIVERY_GRACE_MS / 1000} s at its end delivered, no errors):`,
      ...steps.map((st) => `  ${stepLine(st)}`),
      "Per request kind:       unloaded n      p50      p99      soak n      p50      p99  errors",
      ...KINDS.map(kindLine),
      `Per window of ${windowSeconds} s (RSS: mean of samples every ${RSS_SAMPLE_MS / 1000} s over next start's process tree; backlog: events not yet received at the window's end; gen delay: the load generator's own event-loop delay, the part of a latency that may be the generator's; new conns: connections its keep-alive pool opened, each accepted by the server only at a turn of its event loop):`,
      head,
      ...series.map(
        (w) =>
          `  ${String(w.index).padStart(6)}  ${new Date(w.startedAt).toISOString().slice(11, 19)}  ${w.rps.toFixed(0).padStart(6)} ${f(w.p50).padStart(8)} ${f(w.p99).padStart(8)} ${String(w.errors).padStart(7)}` +
          `  ${w.rssMb.toFixed(0).padStart(6)} (${w.rssMaxMb.toFixed(0)})  ${String(w.events).padStart(6)}  ${String(w.received).padStart(8)}  ${String(w.events - w.received).padStart(7)}  ${f(windowLag(w)).padStart(7)}  ${w.cpu.coresBusy.toFixed(2)}/${w.cpu.coresOurs.toFixed(2)}/${w.cpu.coresOther.toFixed(2)}  ${pctOf(w.cpu.loop).padStart(5)}  ${f(w.generatorDelayP99).padStart(13)}  ${String(w.connectionsOpened).padStart(9)}`,
      ),
      `Verdicts: p99 ${f(soakR.p99)} vs unloaded ${f(baseR.p99)} = ${x(p99Ratio)} (≤ ${P99_LIMIT}×: ${p99Ratio <= P99_LIMIT ? "yes" : "NO"}); ` +
        `RSS ${rssRef.toFixed(0)} → ${rssLast.toFixed(0)} MB = ${Number.isFinite(rssRatio) ? x(rssRatio) : "not judged (fewer than 6 windows)"}; ` +
        `errors ${soakErrors}${soakErrors ? ` ${JSON.stringify(Object.fromEntries(KINDS.map((k) => [k, soakTally.failures.get(k)])))}` : ""}; ` +
        `webhooks ${lags.length}/${events.length} received${drained ? "" : `, NOT drained after ${drainSeconds} s`}.`,
      ...soakTally.examples.map((e) => `  failed: ${e}`),
    ];
    return {
      rows,
      lines,
      details: {
        rates: { closedLoop: closed.rps, maxConnections, max: top.rate, maxKeptPace: top.keptPace, soak: soakRate, baseline: baselineRate },
        steps: steps.map((st) => ({ rate: st.rate, pace: st.pace, secondHalfP50: st.secondHalfP50, lateEvents: st.lateEvents, errors: st.errors, keptPace: st.keptPace, p50: st.r.p50, p99: st.r.p99, loop: st.r.cpu.loop })),
        baseline: Object.fromEntries(KINDS.map((k) => [k, { n: baseline.latencies.get(k)!.length, p50: pct(baseline.latencies.get(k)!, 50), p99: pct(baseline.latencies.get(k)!, 99) }])),
        soak: Object.fromEntries(KINDS.map((k) => [k, { n: soakTally.latencies.get(k)!.length, p50: pct(soakTally.latencies.get(k)!, 50), p99: pct(soakTally.latencies.get(k)!, 99), failures: soakTally.failures.get(k) }])),
        windows: series.map((w) => ({ ...w, lagP99: windowLag(w) })),
        rss: { reference: rssRef, last: rssLast, ratio: rssRatio },
        webhooks: { events: events.length, received: lags.length, drainMs, drained, lagP50: pct(lags, 50), lagP99: pct(lags, 99) },
      },
    };
  } finally {
    client.destroy();
    await receiver.close();
  }
}

/** A share of one core, as a percentage. */
function pctOf(share: number | undefined): string {
  return share === undefined ? "–" : `${(share * 100).toFixed(0)} %`;
}

function stepLine(st: Step): string {
  return (
    `${String(st.rate).padStart(5)} req/s: second half's p50 ${st.secondHalfP50.toFixed(1)} ms, answers ${(st.pace * 100).toFixed(1)} % of the rate, ${st.lateEvents} events late, ${st.errors} errors, ` +
    `p50 ${st.r.p50.toFixed(1)} ms, p99 ${st.r.p99.toFixed(0)} ms, server's main thread ${pctOf(st.r.cpu.loop)}: ${st.keptPace ? "kept pace" : "fell behind"}`
  );
}

function mean(values: number[]): number {
  return values.reduce((a, b) => a + b, 0) / values.length;
}
