import { describe, expect, it } from "vitest";
import { api } from "@/server/testing/api";
import { paymentBody, seedTestMerchant } from "@/server/testing/fixtures";
import { findNul } from "./body";

describe("NUL characters", () => {
  it("are found anywhere in a parsed body, however deep", () => {
    expect(findNul({ a: "ok", b: ["x", { c: "bad\u0000" }] })).toBe("b.1.c");
    expect(findNul({ ["k\u0000"]: "v" })).toBe("k\u0000");
    expect(findNul("\u0000")).toBe("");
    expect(findNul({ a: "fine", n: 1, t: true, z: null })).toBeNull();
    let deep: unknown = "end\u0000";
    for (let i = 0; i < 20_000; i++) deep = [deep];
    expect(findNul(deep)).toMatch(/^0(\.0)*$/);
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
