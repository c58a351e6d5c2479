import { beforeAll, describe, expect, it } from "vitest";
import { openApiDocument } from "@/server/openapi";
import { api } from "@/server/testing/api";
import { expectError } from "@/server/testing/expect-error";
import { paymentBody, seedTestMerchant, uniqueRef, type TestMerchant } from "@/server/testing/fixtures";

const SESSION_FIELDS = [
  "amount",
  "cancel_url",
  "completed_at",
  "created_at",
  "currency",
  "expires_at",
  "id",
  "livemode",
  "metadata",
  "object",
  "payment",
  "reference",
  "status",
  "success_url",
  "url",
];
const RFC3339_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

const sessionBody = (overrides: Record<string, unknown> = {}) => ({
  amount: 1_500,
  currency: "USD",
  reference: uniqueRef("order"),
  success_url: "https://shop.example/thanks",
  ...overrides,
});
const create = (key: string, body: Record<string, unknown>, idempotencyKey?: string) => api("POST", "/v1/checkout_sessions", { key, body, idempotencyKey });

describe("POST /v1/checkout_sessions", () => {
  let m: TestMerchant;
  beforeAll(async () => {
    m = await seedTestMerchant();
  });

  it("creates an open session with every field, and GET answers it the same", async () => {
    const body = sessionBody({ metadata: { cart: "c-9" }, cancel_url: "https://shop.example/cart", expires_in: 900 });
    const res = await create(m.keys.test, body);
    expect(res.status).toBe(201);
    expect(Object.keys(res.body).sort()).toEqual(SESSION_FIELDS);
    expect(res.body).toEqual({
      id: expect.stringMatching(/^cs_[0-9a-z]{26}$/),
      object: "checkout_session",
      livemode: false,
      url: `http://localhost:3000/checkout/${res.body.id}`,
      status: "open",
      amount: 1_500,
      currency: "USD",
      reference: body.reference,
      metadata: { cart: "c-9" },
      success_url: "https://shop.example/thanks",
      cancel_url: "https://shop.example/cart",
      expires_at: expect.stringMatching(RFC3339_UTC),
      payment: null,
      created_at: expect.stringMatching(RFC3339_UTC),
      completed_at: null,
    });
    expect(Date.parse(res.body.expires_at) - Date.parse(res.body.created_at)).toBe(900_000);

    const got = await api("GET", `/v1/checkout_sessions/${res.body.id}`, { key: m.keys.test });
    expect(got.status).toBe(200);
    expect(got.body).toEqual(res.body);
  });

  it("expires in an hour by default, with no cancel_url and empty metadata", async () => {
    const res = await create(m.keys.test, sessionBody());
    expect(res.status).toBe(201);
    expect(Date.parse(res.body.expires_at) - Date.parse(res.body.created_at)).toBe(3_600_000);
    expect(res.body).toMatchObject({ cancel_url: null, metadata: {} });
  });

  it("allows http URLs in test mode and requires https in live mode", async () => {
    const test = await create(m.keys.test, sessionBody({ success_url: "http://localhost:3001/done", cancel_url: "http://localhost:3001/back" }));
    expect(test.status).toBe(201);
    expectError(await create(m.keys.live, sessionBody({ success_url: "http://shop.example/thanks" })), 400, "invalid_request", "parameter_invalid", "success_url");
    expectError(await create(m.keys.live, sessionBody({ cancel_url: "http://shop.example/cart" })), 400, "invalid_request", "parameter_invalid", "cancel_url");
    const live = await create(m.keys.live, sessionBody());
    expect(live.status).toBe(201);
    expect(live.body.livemode).toBe(true);
  });

  it.each([
    ["amount", { amount: -1 }],
    ["currency", { currency: "usd" }],
    ["reference", { reference: "" }],
    ["reference", { reference: "   " }],
    ["reference", { reference: undefined }],
    ["success_url", { success_url: undefined }],
    ["success_url", { success_url: "shop.example/thanks" }],
    ["success_url", { success_url: "ftp://shop.example/thanks" }],
    ["cancel_url", { cancel_url: "javascript:alert(1)" }],
    ["expires_in", { expires_in: 59 }],
    ["expires_in", { expires_in: 86_401 }],
    ["expires_in", { expires_in: 600.5 }],
    ["metadata.k", { metadata: { k: true } }],
    ["customer", { customer: { msisdn: "0771234567" } }],
  ])("refuses a bad %s with parameter_invalid", async (param, overrides) => {
    expectError(await create(m.keys.test, sessionBody(overrides)), 400, "invalid_request", "parameter_invalid", param);
  });

  it("refuses a reference another session has, or a payment has, with reference_in_use", async () => {
    const reference = uniqueRef("dup");
    expect((await create(m.keys.test, sessionBody({ reference }))).status).toBe(201);
    expectError(await create(m.keys.test, sessionBody({ reference })), 400, "invalid_request", "reference_in_use", "reference");

    const paid = uniqueRef("paid");
    expect((await api("POST", "/v1/payments", { key: m.keys.test, body: paymentBody({ reference: paid }), idempotencyKey: paid })).status).toBe(201);
    expectError(await create(m.keys.test, sessionBody({ reference: paid })), 400, "invalid_request", "reference_in_use", "reference");

    // And the other way: a direct payment cannot take a session's reference.
    const err = expectError(
      await api("POST", "/v1/payments", { key: m.keys.test, body: paymentBody({ reference }), idempotencyKey: uniqueRef("k") }),
      400,
      "invalid_request",
      "reference_in_use",
      "reference",
    );
    expect(err.message).toContain("checkout session");

    // The rule holds per environment, as it does for payments.
    expect((await create(m.keys.live, sessionBody({ reference }))).status).toBe(201);
    expect((await create(m.keys.live, sessionBody({ reference: paid }))).status).toBe(201);
  });

  it("replays a create sent again with the same Idempotency-Key", async () => {
    const body = sessionBody();
    const first = await create(m.keys.test, body, "cs-once");
    const again = await create(m.keys.test, body, "cs-once");
    expect(again.status).toBe(201);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(again.text).toBe(first.text);
  });

  it("needs payments:write to create and payments:read to read", async () => {
    const read = await m.restrictedKey(["payments:read"]);
    const write = await m.restrictedKey(["payments:write"]);
    const links = await m.restrictedKey(["links:read", "links:write"]);
    expectError(await create(read, sessionBody()), 403, "permission_error", "scope_missing");
    expectError(await create(links, sessionBody()), 403, "permission_error", "scope_missing");
    const made = await create(write, sessionBody());
    expect(made.status).toBe(201);
    expectError(await api("GET", `/v1/checkout_sessions/${made.body.id}`, { key: write }), 403, "permission_error", "scope_missing");
    expectError(await api("GET", "/v1/checkout_sessions", { key: links }), 403, "permission_error", "scope_missing");
    expect((await api("GET", `/v1/checkout_sessions/${made.body.id}`, { key: read })).status).toBe(200);
  });
});

describe("GET /v1/checkout_sessions/{id}", () => {
  it("answers 404 for another merchant's session, the other environment's, and ids that are not sessions", async () => {
    const [m, other] = await Promise.all([seedTestMerchant(), seedTestMerchant()]);
    const session = (await create(m.keys.test, sessionBody())).body;
    for (const [key, id] of [
      [other.keys.test, session.id],
      [m.keys.live, session.id],
      [m.keys.test, "cs_00000000000000000000000000"],
      [m.keys.test, "plink_00000000000000000000000000"],
    ] as const) {
      expectError(await api("GET", `/v1/checkout_sessions/${id}`, { key }), 404, "not_found", "resource_missing", "id");
    }
  });
});

describe("GET /v1/checkout_sessions", () => {
  let m: TestMerchant;
  let ids: string[];
  beforeAll(async () => {
    m = await seedTestMerchant();
    ids = [];
    for (let i = 0; i < 5; i++) ids.push((await create(m.keys.test, sessionBody())).body.id);
    await create(m.keys.live, sessionBody());
    await create((await seedTestMerchant()).keys.test, sessionBody());
  });

  it("lists newest first, this merchant and environment only", async () => {
    const res = await api("GET", "/v1/checkout_sessions", { key: m.keys.test });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ object: "list", has_more: false, url: "/v1/checkout_sessions" });
    expect(res.body.data.map((s: { id: string }) => s.id)).toEqual([...ids].reverse());
    for (const s of res.body.data) expect(Object.keys(s).sort()).toEqual(SESSION_FIELDS);
  });

  it("walks pages with starting_after and ending_before", async () => {
    const first = await api("GET", "/v1/checkout_sessions?limit=3", { key: m.keys.test });
    expect(first.body.data.map((s: { id: string }) => s.id)).toEqual([ids[4], ids[3], ids[2]]);
    expect(first.body.has_more).toBe(true);
    const next = await api("GET", `/v1/checkout_sessions?limit=3&starting_after=${ids[2]}`, { key: m.keys.test });
    expect(next.body.data.map((s: { id: string }) => s.id)).toEqual([ids[1], ids[0]]);
    expect(next.body.has_more).toBe(false);
    const back = await api("GET", `/v1/checkout_sessions?limit=1&ending_before=${ids[1]}`, { key: m.keys.test });
    expect(back.body.data.map((s: { id: string }) => s.id)).toEqual([ids[2]]);
    expect(back.body.has_more).toBe(true);
  });

  it.each([
    ["limit", "limit=abc"],
    ["starting_after", "starting_after=plink_00000000000000000000000000"],
    ["status", "status=open"],
  ])("refuses a bad %s", async (param, qs) => {
    expectError(await api("GET", `/v1/checkout_sessions?${qs}`, { key: m.keys.test }), 400, "invalid_request", "parameter_invalid", param);
  });
});

describe("OpenAPI", () => {
  it("documents the three checkout session operations with their scopes", () => {
    const doc = openApiDocument("http://localhost:3000") as any;
    expect(doc.paths["/v1/checkout_sessions"].post).toMatchObject({ operationId: "createCheckoutSession", "x-scope": "payments:write" });
    expect(doc.paths["/v1/checkout_sessions"].get).toMatchObject({ operationId: "listCheckoutSessions", "x-scope": "payments:read" });
    expect(doc.paths["/v1/checkout_sessions/{id}"].get).toMatchObject({ operationId: "retrieveCheckoutSession", "x-scope": "payments:read" });
    const body = doc.paths["/v1/checkout_sessions"].post.requestBody.content["application/json"].schema;
    expect(body.required.sort()).toEqual(["amount", "currency", "reference", "success_url"]);
    expect(body.properties.expires_in).toMatchObject({ minimum: 60, maximum: 86_400 });
  });
});
