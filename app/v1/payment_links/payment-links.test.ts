import { beforeAll, describe, expect, it } from "vitest";
import { openApiDocument } from "@/server/openapi";
import { api } from "@/server/testing/api";
import { expectError } from "@/server/testing/expect-error";
import { seedTestMerchant, type TestMerchant } from "@/server/testing/fixtures";

const LINK_FIELDS = [
  "active",
  "amount",
  "created_at",
  "currency",
  "deactivated_at",
  "description",
  "expires_at",
  "id",
  "livemode",
  "metadata",
  "object",
  "single_use",
  "url",
];
const RFC3339_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

const linkBody = (overrides: Record<string, unknown> = {}) => ({ amount: 2_500, currency: "USD", description: "Concert ticket", ...overrides });
const create = (key: string, body: Record<string, unknown>, idempotencyKey?: string) => api("POST", "/v1/payment_links", { key, body, idempotencyKey });

describe("POST /v1/payment_links", () => {
  let m: TestMerchant;
  beforeAll(async () => {
    m = await seedTestMerchant();
  });

  it("creates a link with every field, and GET answers it the same", async () => {
    const expiresAt = new Date(Date.now() + 86_400_000);
    const before = Date.now();
    const res = await create(m.keys.test, linkBody({ single_use: true, expires_at: expiresAt.toISOString(), metadata: { event: "jazz-night" } }));
    expect(res.status).toBe(201);
    expect(Object.keys(res.body).sort()).toEqual(LINK_FIELDS);
    expect(res.body).toEqual({
      id: expect.stringMatching(/^plink_[0-9a-z]{26}$/),
      object: "payment_link",
      livemode: false,
      url: `http://localhost:3000/pay/${res.body.id}`,
      active: true,
      amount: 2_500,
      currency: "USD",
      description: "Concert ticket",
      single_use: true,
      expires_at: expiresAt.toISOString(),
      metadata: { event: "jazz-night" },
      created_at: expect.stringMatching(RFC3339_UTC),
      deactivated_at: null,
    });
    expect(Date.parse(res.body.created_at)).toBeGreaterThanOrEqual(before - 5);

    const got = await api("GET", `/v1/payment_links/${res.body.id}`, { key: m.keys.test });
    expect(got.status).toBe(200);
    expect(got.body).toEqual(res.body);
  });

  it("defaults to a multi-use link that never expires, and marks live links livemode", async () => {
    const res = await create(m.keys.live, linkBody({ currency: "ZWG" }));
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ livemode: true, currency: "ZWG", single_use: false, expires_at: null, metadata: {}, active: true });
  });

  it.each([["a string", String], ["a JSON number", Number]] as const)("accepts expires_at as Unix seconds in %s", async (_as, shape) => {
    const seconds = Math.floor(Date.now() / 1000) + 3_600;
    const res = await create(m.keys.test, linkBody({ expires_at: shape(seconds) }));
    expect(res.status).toBe(201);
    expect(res.body.expires_at).toBe(new Date(seconds * 1000).toISOString());
  });

  it("says what expires_at takes when it is neither", async () => {
    const res = await create(m.keys.test, linkBody({ expires_at: "next week" }));
    expect(res.body.error.message).toMatch(/Unix seconds or an RFC 3339 timestamp/);
    expectError(await create(m.keys.test, linkBody({ expires_at: 1.5 })), 400, "invalid_request", "parameter_invalid", "expires_at");
  });

  it.each([999_999_999_999, "253402300800", "9999-12-31T23:00:00-05:00"])("refuses an expires_at past the year 9999 (%s) as parameter_invalid, not a 500", async (expiresAt) => {
    const res = await create(m.keys.test, linkBody({ expires_at: expiresAt }));
    expect(expectError(res, 400, "invalid_request", "parameter_invalid", "expires_at").message).toMatch(/9999-12-31T23:59:59Z/);
  });

  it("takes the last second of the year 9999", async () => {
    const res = await create(m.keys.test, linkBody({ expires_at: 253_402_300_799 }));
    expect(res.status).toBe(201);
    expect(res.body.expires_at).toBe("9999-12-31T23:59:59.000Z");
  });

  it.each([
    ["amount", { amount: 0 }],
    ["amount", { amount: 12.5 }],
    ["amount", { amount: undefined }],
    ["currency", { currency: "EUR" }],
    ["description", { description: "" }],
    ["description", { description: "   " }],
    ["description", { description: undefined }],
    ["single_use", { single_use: "yes" }],
    ["expires_at", { expires_at: "next week" }],
    ["metadata.n", { metadata: { n: 1 } }],
    ["url", { url: "https://example.com" }],
  ])("refuses a bad %s with parameter_invalid", async (param, overrides) => {
    expectError(await create(m.keys.test, linkBody(overrides)), 400, "invalid_request", "parameter_invalid", param);
  });

  it("refuses an expires_at that is not in the future", async () => {
    const past = new Date(Date.now() - 1_000).toISOString();
    expectError(await create(m.keys.test, linkBody({ expires_at: past })), 400, "invalid_request", "parameter_invalid", "expires_at");
  });

  it("replays a create sent again with the same Idempotency-Key", async () => {
    const first = await create(m.keys.test, linkBody(), "link-once");
    const again = await create(m.keys.test, linkBody(), "link-once");
    expect(again.status).toBe(201);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(again.body.id).toBe(first.body.id);
  });

  it("needs links:write to create and links:read to read", async () => {
    const readOnly = await m.restrictedKey(["links:read"]);
    const writeOnly = await m.restrictedKey(["links:write"]);
    const paymentsKey = await m.restrictedKey(["payments:write", "payments:read"]);
    expectError(await create(readOnly, linkBody()), 403, "permission_error", "scope_missing");
    expectError(await create(paymentsKey, linkBody()), 403, "permission_error", "scope_missing");
    const made = await create(writeOnly, linkBody());
    expect(made.status).toBe(201);
    expectError(await api("GET", `/v1/payment_links/${made.body.id}`, { key: writeOnly }), 403, "permission_error", "scope_missing");
    expectError(await api("GET", "/v1/payment_links", { key: paymentsKey }), 403, "permission_error", "scope_missing");
    expect((await api("GET", `/v1/payment_links/${made.body.id}`, { key: readOnly })).status).toBe(200);
    expectError(await api("POST", `/v1/payment_links/${made.body.id}/deactivate`, { key: readOnly }), 403, "permission_error", "scope_missing");
    expect((await api("POST", `/v1/payment_links/${made.body.id}/deactivate`, { key: writeOnly })).status).toBe(200);
  });

  it("refuses a request without a valid key", async () => {
    expectError(await create("sk_test_nope", linkBody()), 401, "authentication_error", "api_key_invalid");
  });
});

describe("GET /v1/payment_links/{id} and deactivate", () => {
  let m: TestMerchant;
  let other: TestMerchant;
  beforeAll(async () => {
    [m, other] = await Promise.all([seedTestMerchant(), seedTestMerchant()]);
  });

  it("answers 404 for another merchant's link, the other environment's, and ids that are not links", async () => {
    const link = (await create(m.keys.test, linkBody())).body;
    for (const [key, id] of [
      [other.keys.test, link.id],
      [m.keys.live, link.id],
      [m.keys.test, "plink_00000000000000000000000000"],
      [m.keys.test, "pay_0000000000000000000000000a"],
    ] as const) {
      expectError(await api("GET", `/v1/payment_links/${id}`, { key }), 404, "not_found", "resource_missing", "id");
      expectError(await api("POST", `/v1/payment_links/${id}/deactivate`, { key }), 404, "not_found", "resource_missing", "id");
    }
    // Still active: nobody else could deactivate it.
    expect((await api("GET", `/v1/payment_links/${link.id}`, { key: m.keys.test })).body.active).toBe(true);
  });

  it("deactivates once; deactivating again answers the link as it is", async () => {
    const link = (await create(m.keys.test, linkBody())).body;
    const first = await api("POST", `/v1/payment_links/${link.id}/deactivate`, { key: m.keys.test });
    expect(first.status).toBe(200);
    expect(first.body).toEqual({ ...link, active: false, deactivated_at: expect.stringMatching(RFC3339_UTC) });
    const second = await api("POST", `/v1/payment_links/${link.id}/deactivate`, { key: m.keys.test });
    expect(second.status).toBe(200);
    expect(second.body).toEqual(first.body);
    expect((await api("GET", `/v1/payment_links/${link.id}`, { key: m.keys.test })).body).toEqual(first.body);
  });

  it("takes no body on deactivate", async () => {
    const link = (await create(m.keys.test, linkBody())).body;
    const res = await api("POST", `/v1/payment_links/${link.id}/deactivate`, { key: m.keys.test, body: { active: true } });
    expectError(res, 400, "invalid_request", "parameter_invalid", "body");
  });
});

describe("GET /v1/payment_links", () => {
  let m: TestMerchant;
  let ids: string[];
  beforeAll(async () => {
    m = await seedTestMerchant();
    ids = [];
    for (let i = 0; i < 5; i++) ids.push((await create(m.keys.test, linkBody({ description: `link ${i}` }))).body.id);
    // Another environment and another merchant: never listed here.
    await create(m.keys.live, linkBody());
    await create((await seedTestMerchant()).keys.test, linkBody());
    await api("POST", `/v1/payment_links/${ids[1]}/deactivate`, { key: m.keys.test });
    await api("POST", `/v1/payment_links/${ids[3]}/deactivate`, { key: m.keys.test });
  });

  it("lists newest first, this merchant and environment only, in the list envelope", async () => {
    const res = await api("GET", "/v1/payment_links", { key: m.keys.test });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ object: "list", has_more: false, url: "/v1/payment_links" });
    expect(res.body.data.map((l: { id: string }) => l.id)).toEqual([...ids].reverse());
    for (const l of res.body.data) expect(Object.keys(l).sort()).toEqual(LINK_FIELDS);
  });

  it("walks pages with starting_after and ending_before", async () => {
    const first = await api("GET", "/v1/payment_links?limit=2", { key: m.keys.test });
    expect(first.body.data.map((l: { id: string }) => l.id)).toEqual([ids[4], ids[3]]);
    expect(first.body.has_more).toBe(true);
    const second = await api("GET", `/v1/payment_links?limit=2&starting_after=${ids[3]}`, { key: m.keys.test });
    expect(second.body.data.map((l: { id: string }) => l.id)).toEqual([ids[2], ids[1]]);
    expect(second.body.has_more).toBe(true);
    const last = await api("GET", `/v1/payment_links?limit=2&starting_after=${ids[1]}`, { key: m.keys.test });
    expect(last.body.data.map((l: { id: string }) => l.id)).toEqual([ids[0]]);
    expect(last.body.has_more).toBe(false);
    const back = await api("GET", `/v1/payment_links?limit=2&ending_before=${ids[1]}`, { key: m.keys.test });
    expect(back.body.data.map((l: { id: string }) => l.id)).toEqual([ids[3], ids[2]]);
    expect(back.body.has_more).toBe(true);
  });

  it("filters by active", async () => {
    const inactive = await api("GET", "/v1/payment_links?active=false", { key: m.keys.test });
    expect(inactive.body.data.map((l: { id: string }) => l.id)).toEqual([ids[3], ids[1]]);
    const active = await api("GET", "/v1/payment_links?active=true", { key: m.keys.test });
    expect(active.body.data.map((l: { id: string }) => l.id)).toEqual([ids[4], ids[2], ids[0]]);
  });

  it.each([
    ["limit", "limit=0"],
    ["limit", "limit=101"],
    ["active", "active=yes"],
    ["starting_after", "starting_after=pay_0000000000000000000000000a"],
    ["ending_before", "starting_after=plink_00000000000000000000000000&ending_before=plink_00000000000000000000000000"],
    ["status", "status=open"],
  ])("refuses a bad %s", async (param, qs) => {
    expectError(await api("GET", `/v1/payment_links?${qs}`, { key: m.keys.test }), 400, "invalid_request", "parameter_invalid", param);
  });
});

describe("OpenAPI", () => {
  it("documents the four payment link operations with their scopes", () => {
    const doc = openApiDocument("http://localhost:3000") as any;
    expect(doc.paths["/v1/payment_links"].post).toMatchObject({ operationId: "createPaymentLink", "x-scope": "links:write" });
    expect(doc.paths["/v1/payment_links"].get).toMatchObject({ operationId: "listPaymentLinks", "x-scope": "links:read" });
    expect(doc.paths["/v1/payment_links/{id}"].get).toMatchObject({ operationId: "retrievePaymentLink", "x-scope": "links:read" });
    expect(doc.paths["/v1/payment_links/{id}/deactivate"].post).toMatchObject({ operationId: "deactivatePaymentLink", "x-scope": "links:write" });
    const body = doc.paths["/v1/payment_links"].post.requestBody.content["application/json"].schema;
    expect(body.required.sort()).toEqual(["amount", "currency", "description"]);
  });
});
