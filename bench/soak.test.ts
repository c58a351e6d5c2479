import { describe, expect, it } from "vitest";
import { judgeStep, Mix, type Answer } from "./soak";

const STEP_MS = 20_000;
const RATE = 200;

/** A step's answers when the server serves `capacity` requests a second, each taking `serviceMs`, after `backlog` requests already queued. */
function serve(capacity: number, serviceMs: number, backlog = 0): Answer[] {
  const answers: Answer[] = [];
  let free = (backlog * 1000) / capacity;
  for (let i = 0; i < (RATE * STEP_MS) / 1000; i++) {
    const due = (i * 1000) / RATE;
    const start = Math.max(due, free);
    free = start + 1000 / capacity;
    answers.push({ due, at: start + serviceMs });
  }
  return answers;
}

describe("the soak's maximum: did the server keep pace with a step?", () => {
  it("yes, when it answers at the rate within a few milliseconds", () => {
    const verdict = judgeStep(serve(RATE * 1.3, 4), STEP_MS, RATE, 0, 0);
    expect(verdict.keptPace).toBe(true);
    expect(verdict.pace).toBeGreaterThan(0.99);
    expect(verdict.secondHalfP50).toBeCloseTo(4, 0);
  });

  it("no, when the rate is above what it serves: the queue and the median grow", () => {
    const verdict = judgeStep(serve(RATE * 0.95, 4), STEP_MS, RATE, 0, 0);
    expect(verdict.keptPace).toBe(false);
    expect(verdict.pace).toBeLessThan(0.97);
    expect(verdict.secondHalfP50).toBeGreaterThan(500);
  });

  it("no, when it started behind and answers only as fast as the rate: a standing queue", () => {
    const verdict = judgeStep(serve(RATE * 1.01, 4, 100), STEP_MS, RATE, 0, 0);
    expect(verdict.pace).toBeGreaterThan(0.97);
    expect(verdict.secondHalfP50).toBeGreaterThan(50);
    expect(verdict.keptPace).toBe(false);
  });

  it("no, with a failed request or an event not delivered in time", () => {
    const fine = serve(RATE * 1.3, 4);
    expect(judgeStep(fine, STEP_MS, RATE, 0, 1).keptPace).toBe(false);
    expect(judgeStep(fine, STEP_MS, RATE, 3, 0).keptPace).toBe(false);
  });
});

describe("the mix's creates", () => {
  it("share one numbering with the fill's, so that no Idempotency-Key or reference is sent twice", () => {
    const mix = new Mix("sk_test_x", "secret");
    const keys: string[] = [];
    const note = (r: ReturnType<Mix["next"]>) => {
      if (r.kind === "create") keys.push(r.headers["idempotency-key"]!);
    };
    for (let i = 0; i < 40; i++) note(mix.next());
    const beforeFill = mix.createsSent;
    for (let i = 0; i < 25; i++) note(mix.create());
    for (let i = 0; i < 40; i++) note(mix.next());
    expect(beforeFill).toBeGreaterThan(0);
    expect(mix.createsSent).toBe(keys.length);
    expect(new Set(keys).size).toBe(keys.length);
  });
});
