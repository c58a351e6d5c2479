import { describe, expect, it } from "vitest";
import { summarize } from "./load";

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
