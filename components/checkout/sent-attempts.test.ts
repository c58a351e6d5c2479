import { runInNewContext } from "node:vm";
import { describe, expect, it } from "vitest";
import { MAX_ATTEMPT_KEYS } from "@/server/domain/hosted";
import { holdBackScript, ISLAND_STALL_MS } from "./hold-back-script";
import {
  formKey,
  keysToAsk,
  parseSentAttempts,
  SENT_ATTEMPT_TTL_MS,
  withAnswer,
  withDone,
  withSent,
  type SentAttempt,
} from "./sent-attempts";

const NOW = Date.parse("2026-11-22T10:00:00Z");

describe("the attempts a browser kept for a page", () => {
  it("keeps a refused second tab's key beside the first tab's paid one, never in its place", () => {
    // Tab 1 paid; tab 2, loaded before that, taps Pay: its key is kept before the answer (link_used) comes.
    const paid: SentAttempt[] = [{ key: "tab-1", at: NOW - 5_000, paymentId: "pay_1", done: true }];
    const both = withSent(paid, "tab-2", NOW);
    expect(both.map((a) => a.key)).toEqual(["tab-2", "tab-1"]);
    // The next load asks with both; the answer names tab 1's payment, and that is what stays known.
    expect(keysToAsk(both, { open: false, attemptId: null })).toEqual(["tab-2", "tab-1"]);
    const answered = withAnswer(both, ["tab-2", "tab-1"], { key: "tab-1", paymentId: "pay_1", done: true });
    expect(answered).toEqual([{ key: "tab-2", at: NOW }, paid[0]]);
  });

  it("sending the same key again changes nothing, and keeps no more than the status route looks up", () => {
    const one = withSent([], "k1", NOW);
    expect(withSent(one, "k1", NOW + 1_000)).toEqual(one);
    let many: SentAttempt[] = [];
    for (let i = 0; i < MAX_ATTEMPT_KEYS + 3; i++) many = withSent(many, `k${i}`, NOW + i);
    expect(many).toHaveLength(MAX_ATTEMPT_KEYS);
    expect(many[0]!.key).toBe(`k${MAX_ATTEMPT_KEYS + 2}`);
  });

  it("forgets the keys sent before the one that answered, and keeps those sent after (one may still be on its way)", () => {
    const list: SentAttempt[] = [
      { key: "newest", at: NOW },
      { key: "found", at: NOW - 1 },
      { key: "older", at: NOW - 2, paymentId: "pay_0", done: true },
    ];
    expect(withAnswer(list, ["newest", "found", "older"], { key: "found", paymentId: "pay_2", done: false })).toEqual([
      { key: "newest", at: NOW },
      { key: "found", at: NOW - 1, paymentId: "pay_2", done: false },
    ]);
    // Nothing found: keys that named a payment no longer answer for it; the others may yet.
    expect(withAnswer(list, ["newest", "found", "older"], null)).toEqual(list.slice(0, 2));
    // A key another tab added while the look-up was out is not the look-up's to judge.
    expect(withAnswer([{ key: "other-tab", at: NOW + 5 }, ...list], ["newest"], null)).toHaveLength(4);
  });

  it("asks nothing when what it knows is what the page shows, or a finished attempt on a page that takes another", () => {
    const waiting: SentAttempt[] = [{ key: "k", at: NOW, paymentId: "pay_1", done: false }];
    expect(keysToAsk([], { open: true, attemptId: null })).toEqual([]);
    expect(keysToAsk(waiting, { open: true, attemptId: "pay_1" })).toEqual([]);
    // Reopened from the message it came in: the attempt still waits, so it is shown.
    expect(keysToAsk(waiting, { open: true, attemptId: null })).toEqual(["k"]);
    const finished = withDone(waiting, "pay_1");
    expect(keysToAsk(finished, { open: true, attemptId: null })).toEqual([]);
    // A single-use link this browser paid reads "used": its receipt is looked up instead.
    expect(keysToAsk(finished, { open: false, attemptId: null })).toEqual(["k"]);
    // A key whose payment is not known is always asked about.
    expect(keysToAsk([{ key: "lost", at: NOW }, ...finished], { open: true, attemptId: "pay_1" })).toEqual(["lost", "k"]);
  });

  it("gives a new form the newest key whose payment is not known: sending it again is the same attempt", () => {
    expect(formKey([], "fresh")).toBe("fresh");
    expect(formKey([{ key: "lost", at: NOW }], "fresh")).toBe("lost");
    expect(formKey([{ key: "paid", at: NOW, paymentId: "pay_1" }, { key: "older", at: NOW - 1 }], "fresh")).toBe("fresh");
  });

  it("reads what earlier pages kept (one entry), drops stale and garbled entries, newest first", () => {
    expect(parseSentAttempts(JSON.stringify({ key: "old-shape", at: NOW - 1_000 }), NOW)).toEqual([{ key: "old-shape", at: NOW - 1_000 }]);
    const raw = JSON.stringify([{ key: "a", at: NOW - 2 }, { key: "stale", at: NOW - SENT_ATTEMPT_TTL_MS }, { nonsense: true }, { key: "b", at: NOW - 1 }]);
    expect(parseSentAttempts(raw, NOW).map((a) => a.key)).toEqual(["b", "a"]);
    expect(parseSentAttempts("{not json", NOW)).toEqual([]);
    expect(parseSentAttempts(null, NOW)).toEqual([]);
  });
});

describe("the page's first script", () => {
  /** Runs the script on a page whose island has (or has not) run by the time its timer fires. */
  function run(stored: unknown, closed: boolean, islandRan = false): { marks: string[]; timers: number[] } {
    const marks: string[] = [];
    const timers: number[] = [];
    const storage = { getItem: (name: string) => (name === "mari.attempt.plink_1" && stored !== undefined ? JSON.stringify(stored) : null) };
    const main = {
      setAttribute: (name: string) => marks.push(name),
      // The island's early markup goes once it has run.
      querySelector: (selector: string) => (selector === "[data-if-sent]" && !islandRan ? {} : null),
    };
    const setTimeout = (fire: () => void, ms: number) => {
      timers.push(ms);
      fire();
    };
    runInNewContext(holdBackScript("plink_1", closed), { localStorage: storage, document: { currentScript: { parentNode: main } }, Date: { now: () => NOW }, JSON, setTimeout });
    return { marks, timers };
  }
  const marks = (stored: unknown, closed: boolean) => run(stored, closed).marks.includes("data-sent");

  it("holds the page back when this browser kept an attempt it may still have to look up", () => {
    expect(marks(undefined, false)).toBe(false);
    expect(marks(undefined, true)).toBe(false);
    expect(marks([{ key: "lost", at: NOW - 1_000 }], false)).toBe(true);
    expect(marks({ key: "old-shape", at: NOW - 1_000 }, false)).toBe(true);
    expect(marks([{ key: "k", at: NOW, paymentId: "pay_1", done: false }], false)).toBe(true);
    // Finished: nothing to look up on an open page; a closed one looks up this browser's receipt.
    expect(marks([{ key: "k", at: NOW, paymentId: "pay_1", done: true }], false)).toBe(false);
    expect(marks([{ key: "k", at: NOW, paymentId: "pay_1", done: true }], true)).toBe(true);
    expect(marks([{ key: "stale", at: NOW - SENT_ATTEMPT_TTL_MS }], true)).toBe(false);
  });

  it("says the page has not loaded, with a reload link, when the island has not run after a while", () => {
    const lost = [{ key: "lost", at: NOW - 1_000 }];
    expect(run(lost, false)).toEqual({ marks: ["data-sent", "data-stalled"], timers: [ISLAND_STALL_MS] });
    expect(run(lost, false, true)).toEqual({ marks: ["data-sent"], timers: [ISLAND_STALL_MS] });
    // A page not held back has its form or notice from the start: nothing to wait for.
    expect(run(undefined, false)).toEqual({ marks: [], timers: [] });
  });

  /** Runs the script with `stored` kept, and submits a form holding `key` (prevented by the island, or not). */
  function submit(stored: unknown, key: string | undefined, prevented = false): SentAttempt[] | "untouched" {
    let kept: string | undefined;
    let onSubmit: ((e: unknown) => void) | undefined;
    const storage = {
      getItem: (name: string) => (name === "mari.attempt.plink_1" && stored !== undefined ? JSON.stringify(stored) : null),
      setItem: (name: string, value: string) => void (name === "mari.attempt.plink_1" && (kept = value)),
    };
    const addEventListener = (type: string, listener: (e: unknown) => void) => void (type === "submit" && (onSubmit = listener));
    runInNewContext(holdBackScript("plink_1", false), { localStorage: storage, document: { currentScript: { parentNode: {} } }, Date: { now: () => NOW }, JSON, setTimeout, addEventListener });
    onSubmit!({ defaultPrevented: prevented, target: { elements: key === undefined ? {} : { attempt_key: { value: key } } } });
    return kept === undefined ? "untouched" : parseSentAttempts(kept, NOW);
  }

  it("keeps the attempt key of a Pay tapped before the island has run, as the island would", () => {
    expect(submit(undefined, "early")).toEqual([{ key: "early", at: NOW }]);
    const before = [{ key: "older", at: NOW - 5_000, paymentId: "pay_1", done: true }];
    expect(submit(before, "early")).toEqual(withSent(before, "early", NOW));
    // The same key again, a form without one, or a submit the island took: nothing changes.
    expect(submit([{ key: "early", at: NOW - 1_000 }], "early")).toBe("untouched");
    expect(submit(undefined, undefined)).toBe("untouched");
    expect(submit(undefined, "refused", true)).toBe("untouched");
    // At most MAX_ATTEMPT_KEYS, newest first.
    const full = Array.from({ length: MAX_ATTEMPT_KEYS }, (_, i) => ({ key: `k${i}`, at: NOW - 1_000 * (i + 1) }));
    expect(submit(full, "early")).toEqual(withSent(full, "early", NOW));
  });

  it("never throws, whatever storage holds or refuses", () => {
    expect(() => runInNewContext(holdBackScript("plink_1", true), { localStorage: { getItem: () => "{garbled" }, document: {}, Date, JSON })).not.toThrow();
    expect(() => runInNewContext(holdBackScript("plink_1", true), { get localStorage(): never { throw new Error("SecurityError") }, document: {}, Date, JSON })).not.toThrow();
  });
});
