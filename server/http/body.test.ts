import { describe, expect, it } from "vitest";
import { api } from "@/server/testing/api";
import { paymentBody, seedTestMerchant } from "@/server/testing/fixtures";
import { findUnstorable } from "@/server/domain/unstorable";
import { discardUnreadBody, readLimited } from "./body";

describe("NUL characters", () => {
  it("are found anywhere in a parsed body, however deep", () => {
    const nul = (v: unknown) => findUnstorable(v)?.path ?? null;
    expect(nul({ a: "ok", b: ["x", { c: "bad\u0000" }] })).toBe("b.1.c");
    expect(nul({ ["k\u0000"]: "v" })).toBe("k\u0000");
    expect(nul("\u0000")).toBe("");
    expect(findUnstorable({ a: "fine", n: 1, t: true, z: null })).toBeNull();
    // JSON.parse keeps `__proto__` as a key of its own; an object built from it would drop it.
    expect(findUnstorable(JSON.parse('{"metadata":{"order":"1","__proto__":"x"}}'))).toEqual({ path: "metadata.__proto__", problem: "proto" });
    expect(findUnstorable(JSON.parse('{"constructor":"fine","prototype":"fine"}'))).toBeNull();
    let deep: unknown = "end\u0000";
    for (let i = 0; i < 20_000; i++) deep = [deep];
    expect(findUnstorable(deep)?.path).toMatch(/^0(\.0)*$/);
  });

  it("answer 400 parameter_invalid, never a 500, in bodies, queries and paths", async () => {
    const m = await seedTestMerchant();
    const inRef = await api("POST", "/v1/payments", { key: m.keys.test, body: paymentBody({ reference: "a\u0000b" }), idempotencyKey: "nul-1" });
    expect(inRef.status).toBe(400);
    expect(inRef.body.error).toMatchObject({ code: "parameter_invalid", param: "reference" });

    const inMeta = await api("POST", "/v1/payments", { key: m.keys.test, body: paymentBody({ metadata: { k: "\u0000" } }), idempotencyKey: "nul-2" });
    expect(inMeta.body.error).toMatchObject({ code: "parameter_invalid", param: "metadata.k" });

    const inQuery = await api("GET", "/v1/payments?search=a%00b", { key: m.keys.test });
    expect(inQuery.status).toBe(400);
    expect(inQuery.body.error).toMatchObject({ code: "parameter_invalid", param: "search" });

    const inPath = await api("GET", "/v1/payments/pay_%00", { key: m.keys.test });
    expect(inPath.status).toBe(404);
    expect(inPath.body.error.code).toBe("resource_missing");
  });
});

describe("half a surrogate pair", () => {
  it("is found in strings and keys, while whole pairs (emoji) pass", () => {
    expect(findUnstorable({ a: "ok \ud83d\ude00" })).toBeNull();
    expect(findUnstorable({ a: ["x", "\ud800"] })).toEqual({ path: "a.1", problem: "surrogate" });
    expect(findUnstorable({ a: "x\udc00" })).toEqual({ path: "a", problem: "surrogate" });
    expect(findUnstorable({ a: "\ude00\ud83d" })).toEqual({ path: "a", problem: "surrogate" });
    expect(findUnstorable({ m: { ["k\udbff"]: "v" } })).toEqual({ path: "m.k\udbff", problem: "surrogate" });
  });

  it("answers 400 parameter_invalid naming the field, writes nothing, and leaves the key free: jsonb would refuse it, text would turn it into U+FFFD", async () => {
    const m = await seedTestMerchant();
    const sent = (body: unknown) => JSON.stringify(body).replace(/X{4}/g, "\\ud800");
    for (const [raw, param] of [
      [sent(paymentBody({ metadata: { order: "XXXX" } })), "metadata.order"],
      [sent(paymentBody({ reference: "refXXXX" })), "reference"],
      [sent(paymentBody({ metadata: { XXXX: "1" } })), "metadata.\ud800"],
    ] as const) {
      const res = await api("POST", "/v1/payments", { key: m.keys.test, rawBody: raw, headers: { "content-type": "application/json" }, idempotencyKey: "surrogate-1" });
      expect(res.status).toBe(400);
      expect(res.body.error).toMatchObject({ type: "invalid_request", code: "parameter_invalid", param });
      expect(res.body.error.message).toMatch(/surrogate pair/);
    }
    expect((await api("GET", "/v1/payments", { key: m.keys.test })).body.data).toEqual([]);
    expect((await api("POST", "/v1/payments", { key: m.keys.test, body: paymentBody(), idempotencyKey: "surrogate-1" })).status).toBe(201);
  });
});

describe("a '__proto__' key", () => {
  it("is refused by name rather than dropped: the metadata a merchant sends is the metadata kept", async () => {
    const m = await seedTestMerchant();
    const raw = JSON.stringify(paymentBody({ metadata: { order: "1" } })).replace('"order":"1"', '"order":"1","__proto__":"x"');
    const res = await api("POST", "/v1/payments", { key: m.keys.test, rawBody: raw, headers: { "content-type": "application/json" }, idempotencyKey: "proto-1" });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: "parameter_invalid", param: "metadata.__proto__", message: "'__proto__' may not be used as a key." });
    expect((await api("GET", "/v1/payments", { key: m.keys.test })).body.data).toEqual([]);
  });
});

describe("a body past the limit", () => {
  /** A body of `total` bytes (Infinity: one that never ends) in 16 KB chunks, counting what was read of it and whether it was cancelled. */
  const body = (total: number) => {
    const seen = { read: 0, cancelled: false };
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (seen.read >= total) return controller.close();
        const chunk = new Uint8Array(Math.min(16 * 1024, total - seen.read));
        seen.read += chunk.byteLength;
        controller.enqueue(chunk);
      },
      cancel() {
        seen.cancelled = true;
      },
    });
    return { request: new Request("http://127.0.0.1/v1/payments", { method: "POST", body: stream, duplex: "half" } as RequestInit), seen };
  };

  it("is read to its end before it is refused, so that the client, done sending, reads the refusal rather than a reset", async () => {
    const { request, seen } = body(1024 * 1024);
    await expect(readLimited(request)).rejects.toMatchObject({ code: "parameter_invalid", param: "body" });
    expect(seen.read).toBe(1024 * 1024);
  });

  it("is read only so far: a body that never ends is cancelled after a few megabytes", async () => {
    const { request, seen } = body(Number.POSITIVE_INFINITY);
    await expect(readLimited(request)).rejects.toMatchObject({ code: "parameter_invalid" });
    expect(seen.cancelled).toBe(true);
    expect(seen.read).toBeLessThanOrEqual(4 * 1024 * 1024 + 64 * 1024);
  });

  it("of a request refused before its body was read is read and dropped too", async () => {
    const { request, seen } = body(512 * 1024);
    await discardUnreadBody(request);
    expect(seen.read).toBe(512 * 1024);
    // A request whose body was read, or that has none, is left as it is.
    await discardUnreadBody(new Request("http://127.0.0.1/v1/payments"));
  });
});
