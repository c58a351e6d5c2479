import { randomBytes } from "node:crypto";
import { and, eq } from "drizzle-orm";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { POST as createPaymentRoute } from "@/app/v1/payments/route";
import { GET as retrievePaymentRoute } from "@/app/v1/payments/[id]/route";
import { GET as openApiRoute } from "@/app/v1/openapi.json/route";
import { getDb } from "@/db/client";
import { apiKeys, idempotencyKeys, payments } from "@/db/schema";
import { ServiceError } from "@/server/domain/errors";
import { apiRoute } from "@/server/http/api-route";
import { paymentOperations } from "@/server/schemas/payments";
import { hashKey } from "@/server/domain/api-keys";
import { resetRateLimitersForTests } from "@/server/rate-limit";
import { sandbox } from "@/server/providers/registry";
import { revokeApiKey } from "@/server/services/api-keys/revoke-api-key";
import { createApiKey } from "@/server/services/api-keys/create-api-key";
import { api, type ApiResponse } from "@/server/testing/api";
import { setEnv } from "@/server/testing/env";
import { forgetRemembered } from "@/server/services/idempotency/remembered";
import { expectError } from "@/server/testing/expect-error";
import { logOf, nextPushFailsInTheDatabase } from "@/server/testing/log";
import { paymentBody, seedTestMerchant, type TestMerchant } from "@/server/testing/fixtures";
import { systemClock } from "@/server/clock";

const REQUEST_ID = /^req_[0-9a-z]{26}$/;

let m: TestMerchant;
let idem = 0;
const nextKey = () => `api-route-${randomBytes(6).toString("hex")}-${++idem}`;
const post = (body: unknown, opts: { key?: string; idempotencyKey?: string } = {}) =>
  api("POST", "/v1/payments", { key: opts.key ?? m.keys.test, body, idempotencyKey: opts.idempotencyKey ?? nextKey() });

async function paymentCount(merchantId: string): Promise<number> {
  const db = await getDb();
  return (await db.select({ id: payments.id }).from(payments).where(eq(payments.merchantId, merchantId))).length;
}

let restoreEnv: () => void;

beforeAll(async () => {
  // Plenty of requests go through one key here; only the rate-limit test wants the real budget.
  restoreEnv = setEnv({ RATE_LIMIT_TEST_PER_SECOND: "100000", RATE_LIMIT_LIVE_PER_SECOND: "100000" });
  resetRateLimitersForTests();
  m = await seedTestMerchant();
});

afterAll(() => {
  restoreEnv();
  resetRateLimitersForTests();
});

afterEach(() => {
  sandbox.resetFaults();
});

describe("Request-Id", () => {
  it("is on every response, unique per request, and matches the error's request_id", async () => {
    const responses = [
      await api("GET", "/v1/payments", { key: m.keys.test }),
      await post(paymentBody()),
      await api("GET", "/v1/payments"),
      await api("GET", "/v1/payments/pay_nope", { key: m.keys.test }),
      await api("GET", "/v1/nowhere"),
      await api("POST", "/v1/payments/preview", { key: m.keys.test, body: { amount: 100, currency: "USD", method: "wallet" } }),
    ];
    expect(responses.map((r) => r.status)).toEqual([200, 201, 401, 404, 404, 200]);
    const ids = responses.map((r) => r.headers.get("request-id"));
    for (const id of ids) expect(id).toMatch(REQUEST_ID);
    expect(new Set(ids).size).toBe(ids.length);
    for (const r of responses.filter((x) => x.status >= 400)) expect(r.body.error.request_id).toBe(r.headers.get("request-id"));
  });
});

describe("authentication", () => {
  it("refuses a missing key with 401 authentication_error/api_key_invalid", async () => {
    const res = await api("GET", "/v1/payments");
    expectError(res, 401, "authentication_error", "api_key_invalid");
  });

  it("refuses malformed, unknown and revoked keys alike, revealing nothing about which", async () => {
    const db = await getDb();
    const malformed = await api("GET", "/v1/payments", { key: "sk_test_not-a-key" });
    const unknown = await api("GET", "/v1/payments", { key: `sk_test_${"a".repeat(32)}` });
    const wrongPrefix = await api("GET", "/v1/payments", { key: m.keys.test.replace(/^sk_/, "pk_") });

    const extra = await createApiKey({ db, clock: systemClock, actor: { type: "system", job: "test" } }, { merchantId: m.merchant.id, livemode: false, kind: "secret" });
    expect((await api("GET", "/v1/payments", { key: extra.secret })).status).toBe(200);
    const [row] = await db.select().from(apiKeys).where(eq(apiKeys.hash, hashKey(extra.secret)));
    await revokeApiKey({ db, clock: systemClock, merchant: m.merchant, actor: { type: "system", job: "test" } }, row!.id);
    const revoked = await api("GET", "/v1/payments", { key: extra.secret });

    const messages = [malformed, unknown, wrongPrefix, revoked].map((r) => expectError(r, 401, "authentication_error", "api_key_invalid").message);
    expect(new Set(messages).size).toBe(1);
    // The merchant's other keys are untouched by the revocation.
    expect((await api("GET", "/v1/payments", { key: m.keys.test })).status).toBe(200);
  });

  it("refuses a key presented with another scheme or with no value, saying how to send one rather than that none was sent", async () => {
    for (const authorization of [`Token ${m.keys.test}`, m.keys.test, "Bearer", "Bearer ", `Bearer ${m.keys.test} extra`, `Digest ${m.keys.test}`]) {
      const res = await api("GET", "/v1/payments", { headers: { authorization } });
      const message = expectError(res, 401, "authentication_error", "api_key_invalid").message;
      expect([authorization, message]).toEqual([authorization, "The Authorization header must be 'Bearer <your API key>' (or HTTP Basic with the key as the user name)."]);
    }
  });

  it("accepts HTTP Basic with the key as user name (curl -u key:)", async () => {
    const basic = (user: string) => `Basic ${Buffer.from(`${user}:`).toString("base64")}`;
    const ok = await api("GET", "/v1/payments", { headers: { authorization: basic(m.keys.test) } });
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({ object: "list", url: "/v1/payments" });

    const bad = await api("GET", "/v1/payments", { headers: { authorization: basic(`sk_test_${"b".repeat(32)}`) } });
    expectError(bad, 401, "authentication_error", "api_key_invalid");
    const garbage = await api("GET", "/v1/payments", { headers: { authorization: "Basic !!!" } });
    expectError(garbage, 401, "authentication_error", "api_key_invalid");
  });

  it("accepts the scheme name in any case", async () => {
    const res = await api("GET", "/v1/payments", { headers: { authorization: `bearer ${m.keys.test}` } });
    expect(res.status).toBe(200);
  });
});

describe("scopes", () => {
  it("refuses a restricted key lacking the scope with 403 permission_error, and writes nothing", async () => {
    const merchant = await seedTestMerchant();
    const readOnly = await merchant.restrictedKey(["payments:read"]);
    const res = await api("POST", "/v1/payments", { key: readOnly, body: paymentBody(), idempotencyKey: nextKey() });
    const err = expectError(res, 403, "permission_error", "scope_missing");
    expect(err.message).toContain("payments:write");
    expect(await paymentCount(merchant.merchant.id)).toBe(0);

    // The scope it holds works.
    const list = await api("GET", "/v1/payments", { key: readOnly });
    expect(list.status).toBe(200);
    const preview = await api("POST", "/v1/payments/preview", { key: readOnly, body: { amount: 100, currency: "USD", method: "wallet" } });
    expect(preview.status).toBe(200);
  });

  it("lets a restricted key with the right scope through, and only there", async () => {
    const merchant = await seedTestMerchant();
    const writer = await merchant.restrictedKey(["payments:write"]);
    const created = await api("POST", "/v1/payments", { key: writer, body: paymentBody(), idempotencyKey: nextKey() });
    expect(created.status).toBe(201);
    expect(created.body.id).toMatch(/^pay_/);
    expect(await paymentCount(merchant.merchant.id)).toBe(1);

    expectError(await api("GET", "/v1/payments", { key: writer }), 403, "permission_error", "scope_missing");
    expectError(await api("GET", `/v1/payments/${created.body.id}`, { key: writer }), 403, "permission_error", "scope_missing");

    const unrelated = await merchant.restrictedKey(["refunds:read", "events:read"]);
    expectError(await api("GET", "/v1/payments", { key: unrelated }), 403, "permission_error", "scope_missing");
  });
});

describe("request bodies", () => {
  const callCreate = (request: Request) => createPaymentRoute(request, { params: Promise.resolve({}) });

  async function asApi(response: Response): Promise<ApiResponse> {
    const text = await response.text();
    return { status: response.status, headers: response.headers, text, body: JSON.parse(text) };
  }

  it("refuses invalid JSON", async () => {
    for (const rawBody of ["{", '{"amount": 100,}', "nope", '{"amount": 01}', "{'amount': 1}"]) {
      const res = await api("POST", "/v1/payments", { key: m.keys.test, rawBody, headers: { "content-type": "application/json" }, idempotencyKey: nextKey() });
      expectError(res, 400, "invalid_request", "parameter_invalid", "body");
    }
  });

  it("refuses a body that is not JSON by content type", async () => {
    const json = JSON.stringify(paymentBody());
    const cases: [string | undefined, string][] = [
      [undefined, json], // fetch labels a bare string text/plain
      ["text/plain", json],
      ["application/x-www-form-urlencoded", "amount=100&currency=USD"],
      ["multipart/form-data; boundary=x", json],
      ["application/jsonx", json],
    ];
    for (const [type, rawBody] of cases) {
      const res = await api("POST", "/v1/payments", { key: m.keys.test, rawBody, headers: type ? { "content-type": type } : {}, idempotencyKey: nextKey() });
      expectError(res, 400, "invalid_request", "parameter_invalid", "Content-Type");
    }
    // Parameters and case on the JSON type are fine.
    const ok = await api("POST", "/v1/payments", {
      key: m.keys.test,
      rawBody: json,
      headers: { "content-type": "Application/JSON; charset=utf-8" },
      idempotencyKey: nextKey(),
    });
    expect(ok.status).toBe(201);
  });

  it("refuses a body over 64 KB whether or not Content-Length tells the truth about it", async () => {
    const big = JSON.stringify(paymentBody({ metadata: { note: "x" } })).replace("}", `${" ".repeat(64 * 1024)}}`);
    expect(Buffer.byteLength(big)).toBeGreaterThan(64 * 1024);

    const declared = new Request("http://localhost:3000/v1/payments", {
      method: "POST",
      headers: { authorization: `Bearer ${m.keys.test}`, "content-type": "application/json", "content-length": String(Buffer.byteLength(big)), "idempotency-key": nextKey() },
      body: big,
    });
    expect(declared.headers.get("content-length")).toBe(String(Buffer.byteLength(big)));
    expectError(await asApi(await callCreate(declared)), 400, "invalid_request", "parameter_invalid", "body");

    // Streamed with no Content-Length at all: counted as it arrives.
    const bytes = new TextEncoder().encode(big);
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        for (let i = 0; i < bytes.length; i += 8192) controller.enqueue(bytes.slice(i, i + 8192));
        controller.close();
      },
    });
    const streamed = new Request("http://localhost:3000/v1/payments", {
      method: "POST",
      headers: { authorization: `Bearer ${m.keys.test}`, "content-type": "application/json", "idempotency-key": nextKey() },
      body: stream,
      duplex: "half",
    } as RequestInit);
    expect(streamed.headers.get("content-length")).toBeNull();
    expectError(await asApi(await callCreate(streamed)), 400, "invalid_request", "parameter_invalid", "body");
  });

  it("takes a body of exactly 64 KB and refuses one byte more", async () => {
    const padTo = (json: string, n: number) => `${json.slice(0, -1)}${" ".repeat(n - Buffer.byteLength(json))}}`;
    const body = paymentBody();
    const exact = padTo(JSON.stringify(body), 64 * 1024);
    expect(Buffer.byteLength(exact)).toBe(64 * 1024);
    const ok = await api("POST", "/v1/payments", { key: m.keys.test, rawBody: exact, headers: { "content-type": "application/json" }, idempotencyKey: nextKey() });
    expect(ok.status).toBe(201);
    expect(ok.body.reference).toBe(body.reference);

    const over = padTo(JSON.stringify(paymentBody()), 64 * 1024 + 1);
    expect(Buffer.byteLength(over)).toBe(64 * 1024 + 1);
    const res = await api("POST", "/v1/payments", { key: m.keys.test, rawBody: over, headers: { "content-type": "application/json" }, idempotencyKey: nextKey() });
    expectError(res, 400, "invalid_request", "parameter_invalid", "body");
  });

  it("refuses JSON that is not an object", async () => {
    for (const rawBody of ["[]", '[{"amount":100}]', '"a string"', "null", "42", "true"]) {
      const res = await api("POST", "/v1/payments", { key: m.keys.test, rawBody, headers: { "content-type": "application/json" }, idempotencyKey: nextKey() });
      const err = expectError(res, 400, "invalid_request", "parameter_invalid", "body");
      expect(err.message).toBe("The request body must be a JSON object.");
    }
  });

  it("reads an empty POST body as {}: the first missing required field is named", async () => {
    const res = await api("POST", "/v1/payments", { key: m.keys.test, idempotencyKey: nextKey() });
    expect(expectError(res, 400, "invalid_request", "parameter_invalid", "amount").message).toBe("Missing required parameter: 'amount'.");
  });

  it("refuses unknown fields at the top level and nested, naming them", async () => {
    const top = await post(paymentBody({ foo: 1 }));
    expect(expectError(top, 400, "invalid_request", "parameter_invalid", "foo").message).toContain("foo");
    const nested = await post(paymentBody({ customer: { msisdn: "0771234567", foo: "bar" } }));
    expectError(nested, 400, "invalid_request", "parameter_invalid", "customer.foo");
    const proto = await api("POST", "/v1/payments", {
      key: m.keys.test,
      rawBody: JSON.stringify(paymentBody()).replace(/^\{/, '{"__proto__":{"admin":true},'),
      headers: { "content-type": "application/json" },
      idempotencyKey: nextKey(),
    });
    expectError(proto, 400, "invalid_request", "parameter_invalid", "__proto__");
  });

  const wrong: [string, Record<string, unknown>, string][] = [
    ['amount "10"', { amount: "10" }, "amount"],
    ["amount 10.5", { amount: 10.5 }, "amount"],
    ["amount 0", { amount: 0 }, "amount"],
    ["amount -1", { amount: -1 }, "amount"],
    ["amount 1e12", { amount: 1e12 }, "amount"],
    ["amount null", { amount: null }, "amount"],
    ["amount missing", { amount: undefined }, "amount"],
    ['currency "EUR"', { currency: "EUR" }, "currency"],
    ['currency "usd"', { currency: "usd" }, "currency"],
    ['method "card"', { method: "card" }, "method"],
    ['reference ""', { reference: "" }, "reference"],
    ["reference of spaces only", { reference: " \t " }, "reference"],
    ["metadata with an empty key", { metadata: { "": "v" } }, "metadata"],
    ["reference of 256 chars", { reference: "r".repeat(256) }, "reference"],
    ["reference a number", { reference: 12345 }, "reference"],
    ["customer a string", { customer: "0771234567" }, "customer"],
    ["customer without msisdn", { customer: {} }, "customer.msisdn"],
    ["msisdn a number", { customer: { msisdn: 263771234567 } }, "customer.msisdn"],
    ["metadata with 51 keys", { metadata: Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`k${i}`, "v"])) }, "metadata"],
    ["metadata key of 41 chars", { metadata: { ["k".repeat(41)]: "v" } }, `metadata.${"k".repeat(41)}`],
    ["metadata value of 501 chars", { metadata: { note: "v".repeat(501) } }, "metadata.note"],
    ["metadata value a number", { metadata: { count: 1 } }, "metadata.count"],
    ["metadata value null", { metadata: { gone: null } }, "metadata.gone"],
    ["metadata value an object", { metadata: { nested: { a: "b" } } }, "metadata.nested"],
    ["metadata an array", { metadata: ["a"] }, "metadata"],
  ];
  it.each(wrong)("refuses %s with parameter_invalid naming the field", async (_name, overrides, param) => {
    const before = await paymentCount(m.merchant.id);
    const res = await post(paymentBody(overrides));
    expectError(res, 400, "invalid_request", "parameter_invalid", param);
    expect(await paymentCount(m.merchant.id)).toBe(before);
  });

  it("explains a missing field and an out-of-range amount in words", async () => {
    expect(expectError(await post(paymentBody({ amount: undefined })), 400, "invalid_request", "parameter_invalid", "amount").message).toBe(
      "Missing required parameter: 'amount'.",
    );
    expect(expectError(await post(paymentBody({ amount: 0 })), 400, "invalid_request", "parameter_invalid", "amount").message).toMatch(/greater than 0/);
    expect(expectError(await post(paymentBody({ metadata: { ["k".repeat(41)]: "v" } })), 400, "invalid_request", "parameter_invalid", `metadata.${"k".repeat(41)}`).message).toMatch(/40 characters/);
  });

  it("accepts the limits themselves: amount 1 and 99,999,999, a 255-char reference, metadata of 50 keys of 40 chars and 500-char values", async () => {
    const metadata = Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`${String(i).padStart(2, "0")}${"k".repeat(38)}`, "v".repeat(500)]));
    const reference = `${"r".repeat(240)}${randomBytes(8).toString("hex").slice(0, 15)}`;
    expect(reference).toHaveLength(255);
    const big = await post(paymentBody({ amount: 99_999_999, reference, metadata }));
    expect(big.status).toBe(201);
    expect(big.body).toMatchObject({ amount: 99_999_999, reference, metadata });
    const small = await post(paymentBody({ amount: 1 }));
    expect(small.status).toBe(201);
    expect(small.body.amount).toBe(1);
  });
});

describe("query strings", () => {
  const list = (qs: string) => api("GET", `/v1/payments${qs}`, { key: m.keys.test });

  it.each([
    ["?limit=0", "limit"],
    ["?limit=101", "limit"],
    ["?limit=abc", "limit"],
    ["?limit=-1", "limit"],
    ["?limit=1.5", "limit"],
    ["?limit=", "limit"],
    ["?limit=5&limit=6", "limit"],
    ["?foo=bar", "foo"],
    ["?limit=5&Limit=5", "Limit"],
    ["?starting_after=pay_nope", "starting_after"],
    ["?status=done", "status"],
    ["?created[gte]=yesterday", "created[gte]"],
    ["?created=1", "created"],
    ["?__proto__=x", "__proto__"],
    ["?constructor=x", "constructor"],
  ])("refuses %s with parameter_invalid naming %s", async (qs, param) => {
    expectError(await list(qs), 400, "invalid_request", "parameter_invalid", param);
  });

  it("says the same of every limit it refuses", async () => {
    for (const limit of ["0", "101", "-1", "1.5", "abc", "9007199254740992", "1e2"]) {
      expect(expectError(await list(`?limit=${limit}`), 400, "invalid_request", "parameter_invalid", "limit").message, limit).toBe(
        "limit must be an integer between 1 and 100.",
      );
    }
  });

  it("takes limit 1 and 100", async () => {
    for (const limit of [1, 100]) {
      const res = await list(`?limit=${limit}`);
      expect(res.status).toBe(200);
      expect(res.body.data.length).toBeLessThanOrEqual(limit);
    }
  });

  it("refuses query parameters on an operation that takes none", async () => {
    const res = await api("GET", "/v1/payments/pay_whatever?expand=customer", { key: m.keys.test });
    expect(expectError(res, 400, "invalid_request", "parameter_invalid", "expand").message).toBe("Unknown query parameter: 'expand'. This operation takes no query parameters.");
    // A create's fields sent in the query string: the message says where they go.
    const create = await api("POST", "/v1/payments/preview?amount=5", { key: m.keys.test, body: { amount: 500, currency: "USD", method: "wallet" } });
    expect(expectError(create, 400, "invalid_request", "parameter_invalid", "amount").message).toBe(
      "Unknown query parameter: 'amount'. This operation takes no query parameters: send its fields in the JSON body.",
    );
  });
});

describe("unknown paths", () => {
  it("answers 404 in the error envelope for any /v1 path no operation serves", async () => {
    for (const [method, path] of [
      ["GET", "/v1/nope"],
      ["POST", "/v1/charges"],
      ["DELETE", "/v1/payments"],
      ["GET", "/v1/payments/pay_x/refunds"],
      ["PATCH", "/v1/payments/pay_x"],
    ] as const) {
      const res = await api(method, path, { key: m.keys.test });
      const err = expectError(res, 404, "not_found", "resource_missing");
      expect(err.message).toContain(path);
    }
  });

  it("answers a path with a trailing slash, which Next routes to the operation without it, with a 404 naming the path meant, before anything else", async () => {
    const at = (path: string, init: RequestInit = {}) => new Request(`http://localhost:3000${path}`, { ...init, headers: { authorization: `Bearer ${m.keys.test}`, ...init.headers } });
    const before = await paymentCount(m.merchant.id);
    const answers = [
      // A valid create, key and all: refused for its address alone, and nothing written.
      await createPaymentRoute(at("/v1/payments/", { method: "POST", body: JSON.stringify(paymentBody()), headers: { "content-type": "application/json", "idempotency-key": nextKey() } }), {
        params: Promise.resolve({}),
      }),
      await retrievePaymentRoute(at("/v1/payments/pay_x/"), { params: Promise.resolve({ id: "pay_x" }) }),
      await openApiRoute(at("/v1/openapi.json/")),
    ];
    const expected = ["POST /v1/payments", "GET /v1/payments/pay_x", "GET /v1/openapi.json"];
    for (const [i, res] of answers.entries()) {
      expect(res.status).toBe(404);
      const body = (await res.json()) as { error: { code: string; message: string; request_id: string } };
      expect(body.error.code).toBe("resource_missing");
      expect(body.error.message).toContain(`Paths take no trailing slash: ${expected[i]}.`);
      expect(res.headers.get("request-id")).toBe(body.error.request_id);
    }
    expect(await paymentCount(m.merchant.id)).toBe(before);
    // Without the slash, the same requests are served.
    expect((await openApiRoute(at("/v1/openapi.json"))).status).toBe(200);
  });
});

describe("rate limiting", () => {
  it("answers 429 rate_limited with Retry-After once a key spends its per-second budget, per key", async () => {
    const restore = setEnv({ RATE_LIMIT_TEST_PER_SECOND: "3" });
    resetRateLimitersForTests();
    try {
      const merchant = await seedTestMerchant();
      const results = await Promise.all(Array.from({ length: 10 }, () => api("GET", "/v1/payments", { key: merchant.keys.test })));
      const limited = results.filter((r) => r.status === 429);
      const ok = results.filter((r) => r.status === 200);
      expect(ok.length).toBeGreaterThanOrEqual(1);
      expect(ok.length).toBeLessThanOrEqual(6); // at most two one-second windows' worth
      expect(limited.length).toBeGreaterThanOrEqual(4);
      for (const r of limited) {
        expectError(r, 429, "rate_limited", "rate_limited");
        const retryAfter = r.headers.get("retry-after");
        expect(retryAfter).toMatch(/^\d+$/);
        expect(Number(retryAfter)).toBeGreaterThanOrEqual(1);
      }
      // Another key of the same merchant has its own budget.
      const other = await merchant.restrictedKey(["payments:read"]);
      expect((await api("GET", "/v1/payments", { key: other })).status).toBe(200);
    } finally {
      restore();
      resetRateLimitersForTests();
    }
  });
});

describe("requests with a missing or invalid key, per client address", () => {
  it("behind a trusted proxy, an address past its minute's failures is refused before any key is looked up, a valid one too; other addresses go on", async () => {
    const restore = setEnv({ TRUSTED_PROXY_HOPS: "1", API_KEY_FAILURES_PER_ADDRESS_PER_MINUTE: "3" });
    resetRateLimitersForTests();
    try {
      const merchant = await seedTestMerchant();
      const address = `192.0.2.${randomBytes(1)[0]}-${randomBytes(4).toString("hex")}`;
      // The entry the client wrote changes on every request; the proxy's (the last) does not.
      const from = (addr: string) => ({ "x-forwarded-for": `10.1.${randomBytes(1)[0]}.1, ${addr}` });
      const unknownKey = `sk_test_${"x".repeat(32)}`;
      for (const key of [unknownKey, undefined, "not-a-key"]) {
        expectError(await api("GET", "/v1/payments", { key, headers: from(address) }), 401, "authentication_error", "api_key_invalid");
      }
      for (const key of [unknownKey, merchant.keys.test]) {
        const refused = await api("GET", "/v1/payments", { key, headers: from(address) });
        const err = expectError(refused, 429, "rate_limited", "rate_limited");
        expect(err.message).toMatch(/^Too many requests with a missing or invalid API key from this address\./);
        const retryAfter = Number(refused.headers.get("retry-after"));
        expect(retryAfter).toBeGreaterThanOrEqual(1);
        expect(retryAfter).toBeLessThanOrEqual(60);
      }
      expect((await api("GET", "/v1/payments", { key: merchant.keys.test, headers: from(`192.0.2.1-${randomBytes(4).toString("hex")}`) })).status).toBe(200);
      // Valid keys spend none of an address's failures.
      const busy = `192.0.2.2-${randomBytes(4).toString("hex")}`;
      for (let i = 0; i < 5; i++) expect((await api("GET", "/v1/payments", { key: merchant.keys.test, headers: from(busy) })).status).toBe(200);
    } finally {
      restore();
      resetRateLimitersForTests();
    }
  });

  it("without trusted proxies, X-Forwarded-For is not read and every such request is a plain 401", async () => {
    const restore = setEnv({ TRUSTED_PROXY_HOPS: "0", API_KEY_FAILURES_PER_ADDRESS_PER_MINUTE: "3" });
    resetRateLimitersForTests();
    try {
      for (let i = 0; i < 6; i++) {
        expectError(await api("GET", "/v1/payments", { key: `sk_test_${"y".repeat(32)}`, headers: { "x-forwarded-for": "192.0.2.9" } }), 401, "authentication_error", "api_key_invalid");
      }
    } finally {
      restore();
      resetRateLimitersForTests();
    }
  });
});

describe("unexpected faults", () => {
  it("answers 500 api_error/internal without leaking the fault", async () => {
    const original = sandbox.push;
    sandbox.push = async function failingOnce() {
      sandbox.push = original;
      throw new Error("connect ECONNREFUSED 10.0.0.7:5432 password=hunter2");
    };
    try {
      const res = await post(paymentBody());
      const err = expectError(res, 500, "api_error", "internal");
      expect(err.message).toMatch(/retry with the same Idempotency-Key/);
      for (const leak of ["hunter2", "ECONNREFUSED", "10.0.0.7", "stack", "Error:", "    at ", ".ts"]) expect(res.text).not.toContain(leak);
    } finally {
      sandbox.push = original;
    }
  });
});

describe("unexpected faults in the log", () => {
  it("a query of the request that fails in the database is logged with its request id, SQL and reason, and without the customer's number", async () => {
    const restorePush = nextPushFailsInTheDatabase();
    try {
      const { result: res, text, lines } = await logOf(() => post(paymentBody({ customer: { msisdn: "0779876543" } })));
      const err = expectError(res, 500, "api_error", "internal");
      expect(lines.filter((l) => l.msg === "unhandled error")).toMatchObject([{ requestId: err.request_id, error: { message: expect.stringMatching(/^Failed query: select /), cause: { message: "division by zero" } } }]);
      expect(text).not.toContain("779876543");
    } finally {
      restorePush();
    }
  });
});

describe("a route whose service claims the Idempotency-Key in its first write", () => {
  const body = JSON.stringify(paymentBody());
  const call = (route: (request: Request) => Promise<Response>, idempotencyKey: string) =>
    route(
      new Request("http://localhost:3000/v1/payments", {
        method: "POST",
        headers: { authorization: `Bearer ${m.keys.test}`, "content-type": "application/json", "idempotency-key": idempotencyKey },
        body,
      }),
    );
  const recordOf = async (key: string) =>
    (await (await getDb()).select().from(idempotencyKeys).where(and(eq(idempotencyKeys.merchantId, m.merchant.id), eq(idempotencyKeys.key, key))))[0];

  it("answers 500 and keeps no record when the handler never claims the key", async () => {
    const route = apiRoute(paymentOperations.create, async () => ({ ok: true }), { claimInFirstWrite: true });
    const key = nextKey();
    const res = await call(route, key);
    expect(res.status).toBe(500);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe("internal");
    expect(await recordOf(key)).toBeUndefined();
  });

  it("claims the key after the handler refused before claiming: the 4xx is stored and replayed", async () => {
    let runs = 0;
    const route = apiRoute(
      paymentOperations.create,
      async () => {
        runs++;
        throw new ServiceError("reference_in_use", "This reference is already in use.", "reference");
      },
      { claimInFirstWrite: true },
    );
    const key = nextKey();
    const first = await call(route, key);
    expect(first.status).toBe(400);
    const text = await first.text();
    expect(await recordOf(key)).toMatchObject({ state: "completed", responseStatus: 400, responseBody: text });

    // This process remembers the record it completed: the retry is answered before the handler.
    const replay = await call(route, key);
    expect(replay.headers.get("idempotent-replayed")).toBe("true");
    expect(await replay.text()).toBe(text);
    expect(runs).toBe(1);

    // Another process (or this one after a restart) reads the record: the handler runs again,
    // since it cannot know before its first write, and its answer is the stored one.
    forgetRemembered();
    const fromDatabase = await call(route, key);
    expect(fromDatabase.headers.get("idempotent-replayed")).toBe("true");
    expect(await fromDatabase.text()).toBe(text);
    expect(runs).toBe(2);
  });
});

describe("a retry of a request this process completed", () => {
  it("is answered before its body is validated; a key used with another body is told so, valid or not", async () => {
    let parses = 0;
    const counted = { ...paymentOperations.create, body: z.preprocess((v) => (parses++, v), paymentOperations.create.body!) };
    const route = apiRoute(counted, async () => ({ ok: true }));
    const call = async (body: unknown, idempotencyKey: string): Promise<ApiResponse<any>> => {
      const res = await route(
        new Request("http://localhost:3000/v1/payments", {
          method: "POST",
          headers: { authorization: `Bearer ${m.keys.test}`, "content-type": "application/json", "idempotency-key": idempotencyKey },
          body: JSON.stringify(body),
        }),
      );
      const text = await res.text();
      return { status: res.status, headers: res.headers, text, body: JSON.parse(text) };
    };
    const key = nextKey();
    const body = paymentBody();
    const first = await call(body, key);
    expect(first.status).toBe(201);
    expect(parses).toBe(1);

    // The same request again, its fields in another order: the stored answer, no validation.
    const replay = await call(Object.fromEntries(Object.entries(body).reverse()), key);
    expect(replay.status).toBe(201);
    expect(replay.headers.get("idempotent-replayed")).toBe("true");
    expect(parses).toBe(1);

    // Another valid body under the key: validated, then refused as before.
    expectError(await call({ ...body, amount: 999 }, key), 409, "idempotency_conflict", "idempotency_key_reused", "Idempotency-Key");
    expect(parses).toBe(2);
    // An invalid one: the key is taken by another request, and that is what it is told (spec rule 3).
    expectError(await call({ ...body, amount: -1 }, key), 409, "idempotency_conflict", "idempotency_key_reused", "Idempotency-Key");
    // Under a key of its own, its validation error.
    expectError(await call({ ...body, amount: -1 }, nextKey()), 400, "invalid_request", "parameter_invalid", "amount");
  });
});

describe("no input produces a 500", () => {
  const deep = (n: number) => `${"[".repeat(n)}${"]".repeat(n)}`;
  const nul = "\u0000";
  type Case = [string, string, { body?: unknown; rawBody?: string; headers?: Record<string, string>; idempotencyKey?: string }?];
  const cases: Case[] = [
    ["POST", "/v1/payments", { body: paymentBody({ reference: `bad${nul}ref` }) }],
    ["POST", "/v1/payments", { body: paymentBody({ metadata: { note: `a${nul}b` } }) }],
    ["POST", "/v1/payments", { body: paymentBody({ metadata: { [`k${nul}`]: "v" } }) }],
    ["POST", "/v1/payments", { body: paymentBody({ customer: { msisdn: `0771${nul}234567` } }) }],
    ["POST", "/v1/payments", { body: paymentBody({ reference: "\ud800lone" }) }],
    ["POST", "/v1/payments", { body: paymentBody({ reference: "emoji 💸 ref ✓" }) }],
    ["POST", "/v1/payments", { body: paymentBody({ metadata: { "": "empty key" } }) }],
    ["POST", "/v1/payments", { body: paymentBody({ metadata: { ["__proto__"]: "x", constructor: "y" } }) }],
    ["POST", "/v1/payments", { rawBody: deep(20_000), headers: { "content-type": "application/json" } }],
    ["POST", "/v1/payments", { rawBody: `{"customer":${deep(20_000)}}`, headers: { "content-type": "application/json" } }],
    ["POST", "/v1/payments", { rawBody: `{"metadata":{"a":${deep(20_000)}}}`, headers: { "content-type": "application/json" } }],
    ["POST", "/v1/payments", { rawBody: '{"amount":1e400}', headers: { "content-type": "application/json" } }],
    ["POST", "/v1/payments", { rawBody: '{"amount":-0}', headers: { "content-type": "application/json" } }],
    ["POST", "/v1/payments", { rawBody: "\ufeff{}", headers: { "content-type": "application/json" } }],
    ["POST", "/v1/payments", { rawBody: "\xff\xfe", headers: { "content-type": "application/json" } }],
    ["POST", "/v1/payments", { body: paymentBody({ amount: 9_007_199_254_740_993 }) }],
    ["POST", "/v1/payments", { body: paymentBody({ customer: { msisdn: "9".repeat(10_000) } }) }],
    ["POST", "/v1/payments", { body: paymentBody({ customer: { msisdn: "+263 77 123 4567 ext 9" } }) }],
    ["POST", "/v1/payments", { body: paymentBody(), headers: { "idempotency-key": "a\tb" } }],
    ["POST", "/v1/payments", { body: paymentBody(), headers: { "content-length": "not-a-number" } }],
    ["POST", "/v1/payments/preview", { body: { amount: 1e12, currency: "USD", method: "wallet" } }],
    ["POST", "/v1/payments/preview", { body: { amount: 99_999_999, currency: "ZWG", method: "wallet" } }],
    ["POST", "/v1/payments/preview", { rawBody: "[]", headers: { "content-type": "application/json" } }],
    ["GET", "/v1/payments?search=%00"],
    ["GET", "/v1/payments?search=%5C"],
    ["GET", "/v1/payments?search=%25%25%25"],
    ["GET", `/v1/payments?search=${"a".repeat(300)}`],
    ["GET", "/v1/payments?search=%FF%FE"],
    ["GET", "/v1/payments?__proto__=x"],
    ["GET", "/v1/payments?__proto__=x&__proto__=y"],
    ["GET", "/v1/payments?constructor=1"],
    ["GET", "/v1/payments?toString=1"],
    ["GET", "/v1/payments?created[gte]=99999999999999"],
    ["GET", "/v1/payments?created[gte]=999999999999"],
    ["GET", "/v1/payments?created[gte]=0"],
    ["GET", "/v1/payments?created[lt]=9999-12-31T23:59:59Z"],
    ["GET", "/v1/payments?created[lt]=2026-02-30T00:00:00Z"],
    ["GET", "/v1/payments?created[gte]=2026-01-01T00:00:00.123456789%2B05:30"],
    ["GET", "/v1/payments?limit=99999999999999999999999"],
    ["GET", `/v1/payments?starting_after=pay_${"z".repeat(26)}`],
    ["GET", `/v1/payments?ending_before=pay_${"0".repeat(26)}&starting_after=pay_${"z".repeat(26)}`],
    ["GET", "/v1/payments/%00"],
    ["GET", "/v1/payments/%E2%82%AC"],
    ["GET", `/v1/payments/${"x".repeat(5_000)}`],
    ["GET", "/v1/payments/pay_%27%3B%20drop%20table%20payments%3B--"],
    ["GET", "/v1/payments/preview"],
    ["POST", "/v1/payments/pay_x"],
  ];

  it.each(cases.map(([method, path, opts]) => [`${method} ${path.slice(0, 80)}`, method, path, opts] as const))("%s answers below 500", async (_label, method, path, opts = {}) => {
    const res = await api(method, path, {
      key: m.keys.test,
      ...opts,
      idempotencyKey: method === "POST" && !opts.headers?.["idempotency-key"] ? nextKey() : undefined,
    });
    expect(res.status, res.text).toBeLessThan(500);
    expect(res.headers.get("request-id")).toMatch(REQUEST_ID);
    if (res.status >= 400) expectError(res, res.status, res.body.error.type, res.body.error.code, res.body.error.param);
  });

  it("refuses text that PostgreSQL cannot store with parameter_invalid, not a 500", async () => {
    expectError(await post(paymentBody({ reference: `bad${nul}ref` })), 400, "invalid_request", "parameter_invalid", "reference");
    expectError(await post(paymentBody({ metadata: { note: `a${nul}b` } })), 400, "invalid_request", "parameter_invalid", "metadata.note");
    expectError(await api("GET", "/v1/payments?search=%00", { key: m.keys.test }), 400, "invalid_request", "parameter_invalid", "search");
  });

  it("answers 404 for a decoded path id PostgreSQL cannot compare (as Next passes params)", async () => {
    for (const id of [nul, `pay_${nul}`, "€", "x".repeat(5_000)]) {
      const request = new Request("http://localhost:3000/v1/payments/x", { headers: { authorization: `Bearer ${m.keys.test}` } });
      const response = await retrievePaymentRoute(request, { params: Promise.resolve({ id }) });
      const text = await response.text();
      expectError({ status: response.status, headers: response.headers, text, body: JSON.parse(text) }, 404, "not_found", "resource_missing", "id");
    }
  });

  it("leaves the merchant's payments consistent after all of it", async () => {
    const db = await getDb();
    const rows = await db.select().from(payments).where(and(eq(payments.merchantId, m.merchant.id), eq(payments.livemode, false)));
    for (const row of rows) expect(row.reference).not.toContain(nul);
  });
});
