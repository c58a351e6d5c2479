import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { ROOT } from "./build";

// A server that answers one route slowly, asked three times by id and once by list.
const SERVER = `
const http = require("node:http");
const server = http.createServer((req, res) => {
  const wait = req.url.startsWith("/v1/payments/") ? 30 : 0;
  setTimeout(() => res.end("{}"), wait);
});
server.listen(0, "127.0.0.1", async () => {
  const { port } = server.address();
  const get = (p) => new Promise((resolve) => http.get({ port, host: "127.0.0.1", path: p }, (r) => { r.resume(); r.on("end", resolve); }));
  for (let i = 0; i < 3; i++) await get("/v1/payments/pay_01kx7m2q9z3v8w4n5p6r7s8t9u?expand=x");
  await get("/v1/payments?limit=2");
  // About 16 MB that a full collection must keep.
  global.kept = Array.from({ length: 400_000 }, (_, i) => ({ i, s: "k" + i }));
  global.gc();
  // The pause reaches the observer a turn later.
  setImmediate(() => server.close());
});
`;

describe("bench/trace.mjs", () => {
  it("writes the server-side time per route, the loop's delay and GC pauses when the process exits", () => {
    const file = path.join(mkdtempSync(path.join(os.tmpdir(), "mari-trace-")), "trace.log");
    const run = spawnSync(process.execPath, ["--expose-gc", "--import", pathToFileURL(path.join(ROOT, "bench", "trace.mjs")).href, "-e", SERVER], {
      env: { ...process.env, BENCH_TRACE_FILE: file },
      encoding: "utf8",
      timeout: 20_000,
    });
    expect(run.stderr).toBe("");
    expect(run.status).toBe(0);
    const lines = readFileSync(file, "utf8").trim().split("\n");

    const byId = lines.find((l) => l.includes(" server GET /v1/payments/:id "));
    expect(byId).toMatch(/ n=3 p50=[\d.]+ p99=[\d.]+ max=[\d.]+ ms$/);
    // The route waited 30 ms before answering: the server-side time includes it.
    expect(Number(/p50=([\d.]+)/.exec(byId!)![1])).toBeGreaterThanOrEqual(29);
    expect(lines.find((l) => l.includes(" server GET /v1/payments "))).toMatch(/ n=1 /);
    expect(lines.some((l) => / loop delay p99=[\d.]+ max=[\d.]+ ms$/.test(l))).toBe(true);
    expect(lines.some((l) => / gc major n=\d+ total=[\d.]+ max=[\d.]+ ms$/.test(l))).toBe(true);
    expect(lines.some((l) => / old space grew [\d.]+ MB\/s$/.test(l))).toBe(true);
    const heap = lines.find((l) => l.includes(" heap after mark-compact "));
    expect(heap).toMatch(/ n=\d+ min=[\d.]+ last=[\d.]+ MB$/);
    // What the server kept is in it, and an empty process is not that big.
    const last = Number(/last=([\d.]+)/.exec(heap!)![1]);
    expect(last).toBeGreaterThan(16);
    expect(last).toBeLessThan(80);
  });
});
