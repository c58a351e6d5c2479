import { describe, expect, it } from "vitest";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { clientPool, summarize } from "./load";

describe("summarize", () => {
  it("counts each connection's first answer in the throughput but not in the percentiles", () => {
    const steady = Array.from({ length: 98 }, (_, i) => 10 + (i % 5));
    const run = { seconds: 2, latencies: steady, firstAnswers: [1_800, 2_900], statuses: { "201": 100 }, transportErrors: 0 };
    const r = summarize([run], 2);
    expect(r.ok).toBe(100);
    expect(r.rps).toBe(50);
    expect(r.p99).toBe(14);
    expect(r.max).toBe(14);
    expect(r.firstAnswerMax).toBe(2_900);
  });

  it("merges runs, and leaves the first-answer figure out when a run has none (paced loads)", () => {
    const r = summarize(
      [
        { seconds: 1, latencies: [5, 7], firstAnswers: [40], statuses: { "200": 3 }, transportErrors: 0 },
        { seconds: 1, latencies: [6], statuses: { "200": 1, "500": 1 }, transportErrors: 1 },
      ],
      1,
    );
    expect(r).toMatchObject({ ok: 4, rps: 2, p50: 6, max: 7, firstAnswerMax: 40, failures: 2 });
    expect(summarize([{ seconds: 1, latencies: [5], statuses: { "200": 1 }, transportErrors: 0 }], 1).firstAnswerMax).toBeUndefined();
  });
});

describe("clientPool", () => {
  it("closes an idle connection itself before the server's keep-alive timeout would", async () => {
    const server = http.createServer((_req, res) => res.end("ok"));
    server.keepAliveTimeout = 2_000;
    let closed = 0;
    server.on("connection", (socket) => socket.on("close", () => closed++));
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as AddressInfo;
    const pool = clientPool(4, 300);
    try {
      const get = () =>
        new Promise<number>((resolve, reject) =>
          http.get({ host: "127.0.0.1", port, agent: pool }, (res) => res.resume().on("end", () => resolve(res.statusCode!))).on("error", reject),
        );
      expect(await get()).toBe(200);
      expect(Object.values(pool.freeSockets).flat()).toHaveLength(1);
      await new Promise((r) => setTimeout(r, 700));
      // The pool dropped the idle connection after 300 ms, long before the server's 2 s would have.
      expect(Object.values(pool.freeSockets).flat()).toHaveLength(0);
      expect(closed).toBe(1);
      expect(await get()).toBe(200);
    } finally {
      pool.destroy();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
