/**
 * A preload for the server under a benchmark, to see where a latency tail forms:
 *
 *   BENCH_NODE_ARGS="--import ./bench/trace.mjs" npm run bench:soak
 *
 * Every BENCH_TRACE_INTERVAL_MS (default 10,000) and at exit, it appends to BENCH_TRACE_FILE
 * (default bench/results/trace-<pid>.log):
 * - `server <METHOD> <route>`: the time from node's `request` event (the request head parsed) to
 *   the response's `finish`, per route (ids become `:id`). A client's latency beyond it was spent
 *   before node read the request or after it wrote the answer: waiting for the thread.
 * - `loop`: the event loop's delay (p99 and max), how long one turn of the loop kept the rest waiting.
 * - `gc`: pauses per kind (count, total, longest); a scavenge stops the thread while it copies
 *   what survived.
 * - `old space`: how fast the old generation grew (MB/s), that is, what scavenges promoted.
 * - `heap after mark-compact`: the heap in use just after each full collection (the lowest and the
 *   last of the interval), close to what is alive: when it climbs from interval to interval,
 *   something is kept that should not be; when only the RSS climbs, it is the heap's own sizing.
 *
 * It costs the server a timer every 50 ms and an array entry per request. Node built-ins only.
 */
import fs from "node:fs";
import http from "node:http";
import path from "node:path";
import v8 from "node:v8";
import { PerformanceObserver, constants, monitorEventLoopDelay } from "node:perf_hooks";

const INTERVAL_MS = Number(process.env.BENCH_TRACE_INTERVAL_MS || 10_000);
const FILE = process.env.BENCH_TRACE_FILE || path.join(process.cwd(), "bench", "results", `trace-${process.pid}.log`);
fs.mkdirSync(path.dirname(FILE), { recursive: true });

const ID_SEGMENT = /^[a-z]+_[0-9a-z]{16,}$/;
/** `GET /v1/payments/pay_01…?expand=x` → `GET /v1/payments/:id`. */
function routeOf(method, url) {
  const pathname = (url || "/").split("?")[0];
  return `${method} ${pathname
    .split("/")
    .map((s) => (ID_SEGMENT.test(s) ? ":id" : s))
    .join("/")}`;
}

const timings = new Map();
const emit = http.Server.prototype.emit;
http.Server.prototype.emit = function (event, req, res) {
  if (event === "request") {
    const started = performance.now();
    const route = routeOf(req.method, req.url);
    res.once("finish", () => {
      let list = timings.get(route);
      if (!list) timings.set(route, (list = []));
      list.push(performance.now() - started);
    });
  }
  return emit.apply(this, arguments);
};

const GC_KINDS = {
  [constants.NODE_PERFORMANCE_GC_MINOR]: "minor",
  [constants.NODE_PERFORMANCE_GC_MAJOR]: "major",
  [constants.NODE_PERFORMANCE_GC_INCREMENTAL]: "incremental",
  [constants.NODE_PERFORMANCE_GC_WEAKCB]: "weak callbacks",
};
const gc = new Map();
/** Heap in use read when the observer hears of a full collection: a turn after it, so a little above the live heap. */
let afterMajor = [];
function countGc(entries) {
  for (const entry of entries) {
    const kind = GC_KINDS[entry.detail ? entry.detail.kind : entry.kind] || "other";
    if (kind === "major") afterMajor.push(v8.getHeapStatistics().used_heap_size);
    const g = gc.get(kind) || { n: 0, ms: 0, max: 0 };
    g.n++;
    g.ms += entry.duration;
    g.max = Math.max(g.max, entry.duration);
    gc.set(kind, g);
  }
}
const gcObserver = new PerformanceObserver((list) => countGc(list.getEntries()));
gcObserver.observe({ entryTypes: ["gc"] });

const loop = monitorEventLoopDelay({ resolution: 10 });
loop.enable();

let oldSpace = 0;
let oldGrowth = 0;
const oldSpaceUsed = () => v8.getHeapSpaceStatistics().find((s) => s.space_name === "old_space").space_used_size;
oldSpace = oldSpaceUsed();
setInterval(() => {
  const now = oldSpaceUsed();
  if (now > oldSpace) oldGrowth += now - oldSpace;
  oldSpace = now;
}, 50).unref();

const ms = (x) => x.toFixed(1);
const pct = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
let since = performance.now();

function flush() {
  // Pauses not yet delivered to the observer (its callback runs later) belong to this interval.
  countGc(gcObserver.takeRecords());
  const stamp = new Date().toISOString().slice(11, 23);
  const seconds = (performance.now() - since) / 1000;
  const lines = [];
  for (const [route, list] of [...timings].sort(([a], [b]) => (a < b ? -1 : 1))) {
    list.sort((a, b) => a - b);
    lines.push(`${stamp} server ${route} n=${list.length} p50=${ms(pct(list, 50))} p99=${ms(pct(list, 99))} max=${ms(list[list.length - 1])} ms`);
  }
  lines.push(`${stamp} loop delay p99=${ms(loop.percentile(99) / 1e6)} max=${ms(loop.max / 1e6)} ms`);
  for (const [kind, g] of gc) lines.push(`${stamp} gc ${kind} n=${g.n} total=${ms(g.ms)} max=${ms(g.max)} ms`);
  lines.push(`${stamp} old space grew ${ms(oldGrowth / 1e6 / Math.max(seconds, 0.001))} MB/s`);
  if (afterMajor.length > 0) {
    const mb = (b) => ms(b / 1e6);
    lines.push(`${stamp} heap after mark-compact n=${afterMajor.length} min=${mb(Math.min(...afterMajor))} last=${mb(afterMajor[afterMajor.length - 1])} MB`);
  }
  fs.appendFileSync(FILE, `${lines.join("\n")}\n`);
  timings.clear();
  gc.clear();
  afterMajor = [];
  loop.reset();
  oldGrowth = 0;
  since = performance.now();
}

setInterval(flush, INTERVAL_MS).unref();
process.on("exit", flush);
