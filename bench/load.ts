/** Load with autocannon: exact percentiles from every 2xx response's own timing. */
import http from "node:http";
import autocannon, { type RequestSpec } from "autocannon";

export type LoadSpec = { url: string; connections: number; seconds: number; requests: RequestSpec[] };

/** The raw outcome of one autocannon run, mergeable with other runs of the same phase. */
export type Samples = {
  seconds: number;
  latencies: number[];
  statuses: Record<string, number>;
  transportErrors: number;
  /**
   * Closed loops: the latency of each connection's first answer, kept out of `latencies`. A busy
   * node server accepts one new connection per turn of its event loop, so when a run opens its
   * connections against a server the earlier ones already keep busy, the last are accepted turns
   * (up to seconds) later; that wait is connection set-up, not the request's.
   */
  firstAnswers?: number[];
  /** Paced loads: connections the client opened during the run (each waits to be accepted, as above). */
  opened?: number;
};

export type PhaseResult = {
  connections: number;
  seconds: number;
  ok: number;
  rps: number;
  p50: number;
  p99: number;
  max: number;
  /** The slowest first answer on a new connection (not in p50, p99 or max). */
  firstAnswerMax?: number;
  /** Non-2xx answers, transport errors and timeouts: any of them makes the numbers suspect. */
  failures: number;
  statuses: Record<string, number>;
};

export async function load(spec: LoadSpec): Promise<Samples> {
  const latencies: number[] = [];
  const firstAnswers: number[] = [];
  const answered = new Set<unknown>();
  const statuses: Record<string, number> = {};
  let transportErrors = 0;
  const started = performance.now();
  const instance = autocannon({
    url: spec.url,
    connections: spec.connections,
    duration: spec.seconds,
    timeout: 30,
    requests: spec.requests,
  });
  instance.on("response", (client, status, _bytes, ms) => {
    statuses[status] = (statuses[status] ?? 0) + 1;
    if (status < 200 || status >= 300) return;
    if (answered.has(client)) latencies.push(ms);
    else {
      answered.add(client);
      firstAnswers.push(ms);
    }
  });
  instance.on("reqError", () => {
    transportErrors++;
  });
  const result = await instance;
  return {
    seconds: result.duration || (performance.now() - started) / 1000,
    latencies,
    firstAnswers,
    statuses,
    transportErrors: Math.max(transportErrors, result.errors),
  };
}

export function summarize(runs: Samples[], connections: number): PhaseResult {
  const latencies = runs.flatMap((r) => r.latencies).sort((a, b) => a - b);
  const firstAnswers = runs.flatMap((r) => r.firstAnswers ?? []);
  const ok = latencies.length + firstAnswers.length;
  const seconds = runs.reduce((s, r) => s + r.seconds, 0);
  const statuses: Record<string, number> = {};
  for (const r of runs) for (const [s, c] of Object.entries(r.statuses)) statuses[s] = (statuses[s] ?? 0) + c;
  const pct = (p: number) => (latencies.length === 0 ? Number.NaN : latencies[Math.min(latencies.length - 1, Math.ceil((p / 100) * latencies.length) - 1)]!);
  const non2xx = Object.entries(statuses).reduce((n, [s, c]) => (s.startsWith("2") ? n : n + c), 0);
  return {
    connections,
    seconds,
    ok,
    rps: ok / seconds,
    p50: pct(50),
    p99: pct(99),
    max: latencies.at(-1) ?? Number.NaN,
    ...(firstAnswers.length > 0 ? { firstAnswerMax: Math.max(...firstAnswers) } : {}),
    failures: non2xx + runs.reduce((n, r) => n + r.transportErrors, 0),
    statuses,
  };
}

/** `kind` is the caller's own label (which part of a mix a request belongs to); it is not sent. */
export type PacedRequest = { method: string; path: string; headers: Record<string, string>; body?: string; kind?: string };
export type PacedSpec = {
  url: string;
  /** Requests per second, sent on a fixed schedule whether or not earlier ones have answered. */
  rate: number;
  seconds: number;
  /**
   * The client's keep-alive pool. A pool that outlives one run (as a real client's does) keeps its
   * connections warm; without one, each run opens new connections as its concurrency grows.
   */
  agent?: http.Agent;
  maxSockets: number;
  next: () => PacedRequest;
  /** Each answer, with its latency from the request's due time and the request it answers. */
  onResponse?: (status: number, body: string, latencyMs: number, req: PacedRequest) => void;
  /** A request that got no answer: `reason` is "timeout" (none within 30 s) or the socket error's code. */
  onError?: (req: PacedRequest, reason: string) => void;
};

/**
 * How long the bench's clients keep an idle connection: under the server's keep-alive timeout
 * (`npm start`'s `--keepAliveTimeout 65000`), as a well-behaved client's is. A pool that keeps
 * them longer can send a request on one just as the server closes it, and gets ECONNRESET: the
 * likely cause of the one request without an answer in 144,000 of a 10-minute soak (2026-11-26).
 */
export const CLIENT_IDLE_MS = 30_000;

/** A keep-alive pool as a merchant's HTTP client keeps one. */
export function clientPool(maxSockets: number, idleMs = CLIENT_IDLE_MS): http.Agent {
  return new http.Agent({ keepAlive: true, maxSockets, timeout: idleMs });
}

/**
 * Open-loop load: request i is due at start + i / rate, and its latency is counted from when it was
 * due, so a slow server cannot hide its queueing by slowing the generator down (no coordinated
 * omission). autocannon's own rate limit releases each connection's quota at the top of every
 * second, which turns a steady rate into bursts; this does not.
 */
export async function paced(spec: PacedSpec): Promise<Samples> {
  const agent = spec.agent ?? clientPool(spec.maxSockets);
  let opened = 0;
  const target = new URL(spec.url);
  const latencies: number[] = [];
  const statuses: Record<string, number> = {};
  let transportErrors = 0;
  const inflight = new Set<Promise<void>>();
  const total = Math.round(spec.rate * spec.seconds);
  const start = performance.now();
  for (let i = 0; i < total; i++) {
    const due = start + (i * 1000) / spec.rate;
    const wait = due - performance.now();
    if (wait > 0.5) await new Promise((r) => setTimeout(r, wait));
    const req = spec.next();
    const p = new Promise<void>((resolve) => {
      const r = http.request(
        { agent, host: target.hostname, port: target.port, method: req.method, path: req.path, headers: req.headers },
        (res) => {
          const chunks: Buffer[] = [];
          res.on("data", (c: Buffer) => chunks.push(c));
          res.on("end", () => {
            const status = res.statusCode ?? 0;
            const ms = performance.now() - due;
            statuses[status] = (statuses[status] ?? 0) + 1;
            if (status >= 200 && status < 300) latencies.push(ms);
            spec.onResponse?.(status, Buffer.concat(chunks).toString(), ms, req);
            resolve();
          });
        },
      );
      r.on("socket", () => {
        if (!r.reusedSocket) opened++;
      });
      r.setTimeout(30_000, () => r.destroy(new Error("timeout")));
      r.on("error", (e: NodeJS.ErrnoException) => {
        transportErrors++;
        spec.onError?.(req, e.code ?? e.message);
        resolve();
      });
      r.end(req.body);
    });
    inflight.add(p);
    void p.then(() => inflight.delete(p));
  }
  await Promise.all(inflight);
  if (!spec.agent) agent.destroy();
  return { seconds: spec.seconds, latencies, statuses, transportErrors, opened };
}
