import { beforeEach, describe, expect, it } from "vitest";
import { forgetRemembered, recallCompleted, rememberCompleted, REMEMBERED_MAX, REMEMBERED_MAX_BODY, REMEMBERED_MAX_CHARS } from "./remembered";

const scope = { merchantId: "mer_a", livemode: false };
const now = new Date("2026-11-25T12:00:00Z");
const later = (ms: number) => new Date(now.getTime() + ms);
const record = (over: Partial<Parameters<typeof rememberCompleted>[2]> = {}) => ({ requestHash: "h1", status: 201, body: '{"id":"pay_1"}', expiresAt: later(60_000), ...over });

describe("completed idempotency records remembered by this process", () => {
  beforeEach(() => forgetRemembered());

  it("answers a retry with the same request from memory, and only for its merchant, environment and key", () => {
    rememberCompleted(scope, "k1", record());
    expect(recallCompleted(scope, "k1", "h1", now)).toEqual({ status: 201, body: '{"id":"pay_1"}' });
    expect(recallCompleted({ ...scope, livemode: true }, "k1", "h1", now)).toBeUndefined();
    expect(recallCompleted({ ...scope, merchantId: "mer_b" }, "k1", "h1", now)).toBeUndefined();
    expect(recallCompleted(scope, "k2", "h1", now)).toBeUndefined();
  });

  it("refuses the key with another request, as the database's record does", () => {
    rememberCompleted(scope, "k1", record());
    expect(recallCompleted(scope, "k1", "h2", now)).toBe("other_request");
  });

  it("forgets a record once it expires: the database decides what the key means then", () => {
    rememberCompleted(scope, "k1", record());
    expect(recallCompleted(scope, "k1", "h1", later(59_999))).toBeDefined();
    expect(recallCompleted(scope, "k1", "h1", later(60_000))).toBeUndefined();
    // Gone, not only hidden: a clock that goes back does not bring it back.
    expect(recallCompleted(scope, "k1", "h1", now)).toBeUndefined();
  });

  it("keeps at most REMEMBERED_MAX records, dropping the one stored longest ago", () => {
    for (let i = 0; i <= REMEMBERED_MAX; i++) rememberCompleted(scope, `k${i}`, record());
    expect(recallCompleted(scope, "k0", "h1", now)).toBeUndefined();
    expect(recallCompleted(scope, "k1", "h1", now)).toBeDefined();
    expect(recallCompleted(scope, `k${REMEMBERED_MAX}`, "h1", now)).toBeDefined();
  });

  it("keeps at most REMEMBERED_MAX_CHARS of keys and answers, dropping the records stored longest ago", () => {
    const body = "x".repeat(REMEMBERED_MAX_BODY);
    const bodies = REMEMBERED_MAX_CHARS / body.length; // each record holds a little more: its key
    for (let i = 0; i <= bodies; i++) rememberCompleted(scope, `k${i}`, record({ body }));
    expect(recallCompleted(scope, "k0", "h1", now)).toBeUndefined();
    expect(recallCompleted(scope, `k${bodies}`, "h1", now)).toEqual({ status: 201, body });
    // Room freed by replacing, expiring or forgetting a record is counted back.
    forgetRemembered();
    const fit = bodies - 2;
    for (let round = 0; round < 3; round++) for (let i = 0; i < fit; i++) rememberCompleted(scope, `k${i}`, record({ body }));
    expect(recallCompleted(scope, "k0", "h1", now)).toBeDefined();
    rememberCompleted(scope, "soon", record({ body, expiresAt: later(1) }));
    expect(recallCompleted(scope, "soon", "h1", later(1))).toBeUndefined();
    rememberCompleted(scope, "next", record({ body }));
    expect(recallCompleted(scope, "k0", "h1", now)).toBeDefined();
  });

  it("does not keep answers larger than REMEMBERED_MAX_BODY", () => {
    rememberCompleted(scope, "big", record({ body: "x".repeat(REMEMBERED_MAX_BODY + 1) }));
    expect(recallCompleted(scope, "big", "h1", now)).toBeUndefined();
  });
});
