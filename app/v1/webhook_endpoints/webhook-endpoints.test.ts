import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { api } from "@/server/testing/api";
import { setEnv } from "@/server/testing/env";
import { expectError } from "@/server/testing/expect-error";
import { seedTestMerchant, type TestMerchant } from "@/server/testing/fixtures";

const ENDPOINT_FIELDS = [
  "consecutive_failures",
  "created_at",
  "degraded_since",
  "description",
  "enabled_events",
  "health",
  "id",
  "livemode",
  "metadata",
  "object",
  "previous_secret_expires_at",
  "status",
  "url",
];

const create = (key: string, body: Record<string, unknown>) => api("POST", "/v1/webhook_endpoints", { key, body });

describe("/v1/webhook_endpoints", () => {
  let m: TestMerchant;
  let other: TestMerchant;
  let restore: (() => void) | undefined;
  beforeAll(async () => {
    [m, other] = await Promise.all([seedTestMerchant(), seedTestMerchant()]);
  });
  afterEach(() => {
    restore?.();
    restore = undefined;
  });

  it("creates an endpoint and shows its whsec_ secret on creation only", async () => {
    const res = await create(m.keys.test, {
      url: "http://127.0.0.1:4000/hooks",
      enabled_events: ["payment.succeeded", "payment.failed", "payment.succeeded"],
      description: "orders service",
      metadata: { team: "payments" },
    });
    expect(res.status).toBe(201);
    expect(Object.keys(res.body).sort()).toEqual([...ENDPOINT_FIELDS, "secret"].sort());
    expect(res.body).toMatchObject({
      object: "webhook_endpoint",
      livemode: false,
      url: "http://127.0.0.1:4000/hooks",
      enabled_events: ["payment.succeeded", "payment.failed"],
      status: "enabled",
      health: "healthy",
      degraded_since: null,
      metadata: { team: "payments" },
    });
    expect(res.body.id).toMatch(/^we_[0-9a-z]{26}$/);
    expect(res.body.secret).toMatch(/^whsec_[A-Za-z0-9_-]{43}$/);

    const got = await api("GET", `/v1/webhook_endpoints/${res.body.id}`, { key: m.keys.test });
    expect(got.status).toBe(200);
    expect(Object.keys(got.body).sort()).toEqual(ENDPOINT_FIELDS);
    expect(got.text).not.toContain(res.body.secret);

    const list = await api("GET", "/v1/webhook_endpoints", { key: m.keys.test });
    expect(list.body.data.map((e: { id: string }) => e.id)).toContain(res.body.id);
    expect(list.text).not.toContain("whsec_");
  });

  it('"*" stands for every event type', async () => {
    const res = await create(m.keys.test, { url: "http://127.0.0.1:4000/all", enabled_events: ["payment.failed", "*"] });
    expect(res.body.enabled_events).toEqual(["*"]);
  });

  it.each([
    [{ enabled_events: ["*"] }, "url"],
    [{ url: "http://127.0.0.1/x" }, "enabled_events"],
    [{ url: "http://127.0.0.1/x", enabled_events: [] }, "enabled_events"],
    [{ url: "http://127.0.0.1/x", enabled_events: ["payment.refunded"] }, "enabled_events[0]"],
    [{ url: "http://127.0.0.1/x", enabled_events: "*" }, "enabled_events"],
    [{ url: "ftp://127.0.0.1/x", enabled_events: ["*"] }, "url"],
    [{ url: "not a url", enabled_events: ["*"] }, "url"],
    [{ url: "http://user:pw@127.0.0.1/x", enabled_events: ["*"] }, "url"],
    [{ url: "http://127.0.0.1/x", enabled_events: ["*"], secret: "mine" }, "secret"],
  ])("refuses %j naming %s", async (body, param) => {
    expectError(await create(m.keys.test, body), 400, "invalid_request", "parameter_invalid", param);
  });

  it("needs https in live mode and allows http in test mode", async () => {
    const live = await create(m.keys.live, { url: "http://93.184.215.14/hooks", enabled_events: ["*"] });
    expect(expectError(live, 400, "invalid_request", "parameter_invalid", "url").message).toMatch(/https/);
    const liveHttps = await create(m.keys.live, { url: "https://93.184.215.14/hooks", enabled_events: ["*"] });
    expect(liveHttps.status).toBe(201);
    expect(liveHttps.body.livemode).toBe(true);
  });

  it.each([
    "http://127.0.0.1/x",
    "http://[::1]/x",
    "http://[::ffff:127.0.0.1]/x",
    "http://0.0.0.0/x",
    "http://10.0.0.8/x",
    "http://172.16.0.1/x",
    "http://192.168.1.1/x",
    "http://100.64.0.1/x",
    "http://169.254.169.254/latest/meta-data",
    "http://[fd00::1]/x",
    "http://2130706433/x",
    "http://0177.0.0.1/x",
    "http://localhost:3000/x",
  ])("refuses %s unless private networks are allowed", async (url) => {
    restore = setEnv({ WEBHOOK_ALLOW_PRIVATE_NETWORKS: "false" });
    const err = expectError(await create(m.keys.test, { url, enabled_events: ["*"] }), 400, "invalid_request", "parameter_invalid", "url");
    expect(err.message).toMatch(/must not point to/);
  });

  it("refuses link-local addresses even when private networks are allowed", async () => {
    for (const url of ["http://169.254.169.254/latest", "http://[fe80::1]/x"]) {
      expectError(await create(m.keys.test, { url, enabled_events: ["*"] }), 400, "invalid_request", "parameter_invalid", "url");
    }
    expect((await create(m.keys.test, { url: "http://10.0.0.8/x", enabled_events: ["*"] })).status).toBe(201);
  });

  it("updates url, events, description and metadata, and disables and enables", async () => {
    const { body: ep } = await create(m.keys.test, { url: "http://127.0.0.1:4000/a", enabled_events: ["*"] });
    const res = await api("POST", `/v1/webhook_endpoints/${ep.id}`, {
      key: m.keys.test,
      body: { url: "http://127.0.0.1:4000/b", enabled_events: ["payment.expired"], description: "b", metadata: { k: "v" }, disabled: true },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ url: "http://127.0.0.1:4000/b", enabled_events: ["payment.expired"], description: "b", metadata: { k: "v" }, status: "disabled" });
    expect(res.body.secret).toBeUndefined();
    const enabled = await api("POST", `/v1/webhook_endpoints/${ep.id}`, { key: m.keys.test, body: { disabled: false, description: null } });
    expect(enabled.body).toMatchObject({ status: "enabled", description: null, url: "http://127.0.0.1:4000/b" });

    restore = setEnv({ WEBHOOK_ALLOW_PRIVATE_NETWORKS: "false" });
    const bad = await api("POST", `/v1/webhook_endpoints/${ep.id}`, { key: m.keys.test, body: { url: "http://10.1.1.1/x" } });
    expectError(bad, 400, "invalid_request", "parameter_invalid", "url");
  });

  it("merges metadata as Stripe does: keys sent are set, a key sent as \"\" is removed, the others stay, and the limit counts the result", async () => {
    const { body: ep } = await create(m.keys.test, { url: "http://127.0.0.1:4000/meta", enabled_events: ["*"], metadata: { team: "payments", env: "staging" } });
    const update = (metadata: Record<string, string>) => api("POST", `/v1/webhook_endpoints/${ep.id}`, { key: m.keys.test, body: { metadata } });
    expect((await update({ owner: "ops", env: "" })).body.metadata).toEqual({ team: "payments", owner: "ops" });
    expect((await update({})).body.metadata).toEqual({ team: "payments", owner: "ops" });
    const many = Object.fromEntries(Array.from({ length: 49 }, (_, i) => [`k${i}`, "v"]));
    const over = expectError(await update(many), 400, "invalid_request", "parameter_invalid", "metadata");
    expect(over.message).toContain("at most 50 keys");
    expect((await api("GET", `/v1/webhook_endpoints/${ep.id}`, { key: m.keys.test })).body.metadata).toEqual({ team: "payments", owner: "ops" });
    expect(Object.keys((await update({ ...many, team: "" })).body.metadata)).toHaveLength(50);
  });

  it("rolls the secret: a new one shown once, the old one signing alongside for 24 h", async () => {
    const { body: ep } = await create(m.keys.test, { url: "http://127.0.0.1:4000/roll", enabled_events: ["*"] });
    const before = Date.now();
    const rolled = await api("POST", `/v1/webhook_endpoints/${ep.id}/roll_secret`, { key: m.keys.test });
    expect(rolled.status).toBe(200);
    expect(rolled.body.secret).toMatch(/^whsec_/);
    expect(rolled.body.secret).not.toBe(ep.secret);
    const until = new Date(rolled.body.previous_secret_expires_at).getTime();
    expect(until - before).toBeGreaterThanOrEqual(24 * 3600_000 - 1_000);
    expect(until - before).toBeLessThanOrEqual(24 * 3600_000 + 5_000);
  });

  it("refuses a DELETE that comes with a body (a field it cannot take, or not JSON), and deletes nothing; an empty one is fine", async () => {
    const { body: ep } = await create(m.keys.test, { url: "http://127.0.0.1:4000/del-body", enabled_events: ["*"] });
    const path = `/v1/webhook_endpoints/${ep.id}`;
    const sent = await api("DELETE", path, { key: m.keys.test, body: { confirm: true } });
    expect(expectError(sent, 400, "invalid_request", "parameter_invalid", "body").message).toBe("This endpoint takes no request body.");
    expectError(await api("DELETE", path, { key: m.keys.test, rawBody: "{", headers: { "content-type": "application/json" } }), 400, "invalid_request", "parameter_invalid", "body");
    expectError(await api("DELETE", path, { key: m.keys.test, rawBody: "id=1", headers: { "content-type": "application/x-www-form-urlencoded" } }), 400, "invalid_request", "parameter_invalid", "Content-Type");
    expect((await api("GET", path, { key: m.keys.test })).status).toBe(200);
    expect((await api("DELETE", path, { key: m.keys.test, body: {} })).body).toEqual({ id: ep.id, object: "webhook_endpoint", livemode: false, deleted: true });
  });

  it("deletes: the endpoint is gone from reads, lists and updates", async () => {
    const { body: ep } = await create(m.keys.test, { url: "http://127.0.0.1:4000/del", enabled_events: ["*"] });
    const del = await api("DELETE", `/v1/webhook_endpoints/${ep.id}`, { key: m.keys.test });
    expect(del.status).toBe(200);
    expect(del.body).toEqual({ id: ep.id, object: "webhook_endpoint", livemode: false, deleted: true });
    expectError(await api("GET", `/v1/webhook_endpoints/${ep.id}`, { key: m.keys.test }), 404, "not_found", "resource_missing", "id");
    expectError(await api("DELETE", `/v1/webhook_endpoints/${ep.id}`, { key: m.keys.test }), 404, "not_found", "resource_missing", "id");
    expectError(await api("POST", `/v1/webhook_endpoints/${ep.id}/roll_secret`, { key: m.keys.test }), 404, "not_found", "resource_missing", "id");
    const list = await api("GET", "/v1/webhook_endpoints?limit=100", { key: m.keys.test });
    expect(list.body.data.map((e: { id: string }) => e.id)).not.toContain(ep.id);
  });

  it("another merchant's and the other environment's endpoints are missing, and never listed", async () => {
    const { body: ep } = await create(m.keys.test, { url: "http://127.0.0.1:4000/mine", enabled_events: ["*"] });
    for (const key of [other.keys.test, m.keys.live]) {
      expectError(await api("GET", `/v1/webhook_endpoints/${ep.id}`, { key }), 404, "not_found", "resource_missing", "id");
      expectError(await api("POST", `/v1/webhook_endpoints/${ep.id}`, { key, body: { disabled: true } }), 404, "not_found", "resource_missing", "id");
      expectError(await api("DELETE", `/v1/webhook_endpoints/${ep.id}`, { key }), 404, "not_found", "resource_missing", "id");
      const list = await api("GET", "/v1/webhook_endpoints?limit=100", { key });
      expect(list.body.data.map((e: { id: string }) => e.id)).not.toContain(ep.id);
    }
  });

  it("checks scopes: webhooks:read reads, webhooks:write writes", async () => {
    const reader = await m.restrictedKey(["webhooks:read"]);
    const paymentsOnly = await m.restrictedKey(["payments:read"]);
    expect((await api("GET", "/v1/webhook_endpoints", { key: reader })).status).toBe(200);
    expectError(await create(reader, { url: "http://127.0.0.1/x", enabled_events: ["*"] }), 403, "permission_error", "scope_missing");
    expectError(await api("GET", "/v1/webhook_endpoints", { key: paymentsOnly }), 403, "permission_error", "scope_missing");
    expectError(await api("GET", "/v1/webhook_deliveries", { key: paymentsOnly }), 403, "permission_error", "scope_missing");
  });

  it("caps endpoints at 16 per merchant and environment", async () => {
    const m2 = await seedTestMerchant();
    const made = await Promise.all(Array.from({ length: 18 }, (_, i) => create(m2.keys.test, { url: `http://127.0.0.1:4000/${i}`, enabled_events: ["*"] })));
    expect(made.filter((r) => r.status === 201)).toHaveLength(16);
    // No field of the request is wrong: the error names none.
    for (const r of made.filter((x) => x.status !== 201)) expect(expectError(r, 400, "invalid_request", "parameter_invalid").message).toMatch(/at most 16/);
    expect((await create(m2.keys.live, { url: "https://93.184.215.14/x", enabled_events: ["*"] })).status).toBe(201);
  });
});
