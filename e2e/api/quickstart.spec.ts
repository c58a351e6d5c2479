import { randomUUID } from "node:crypto";
import http from "node:http";
import { expect, test, type APIResponse } from "@playwright/test";
import { basic, bearer, seed } from "../support/seed";

/**
 * The README's curl quickstart, over real HTTP against `next start`: preview the fee, create a
 * payment with an Idempotency-Key, read it back, find it in the list, replay the create, and the
 * error answers a first integration meets (no key, wrong environment, missing Idempotency-Key).
 */

const REQUEST_ID = /^req_[0-9a-z]+$/;

function expectRequestId(res: APIResponse): string {
  const id = res.headers()["request-id"];
  expect(id, `Request-Id header on ${res.url()}`).toMatch(REQUEST_ID);
  return id!;
}

/**
 * A first page, newest first, that holds `id`, or only payments newer than it: other tests make
 * payments of the same merchant meanwhile, and may have pushed it to the next page.
 */
function expectNewestFirstWith(page: { id: string }[], id: string): void {
  const ids = page.map((p) => p.id);
  expect(ids).toEqual([...ids].sort().reverse());
  if (!ids.includes(id)) expect(ids.every((other) => other > id), `${id} is neither on the first page nor older than all of it`).toBe(true);
}

async function expectError(res: APIResponse, status: number, type: string, code: string) {
  expect(res.status(), await res.text()).toBe(status);
  expect(res.headers()["content-type"]).toContain("application/json");
  const requestId = expectRequestId(res);
  const body = (await res.json()) as { error: { type: string; code: string; message: string; request_id: string } };
  expect(body.error).toMatchObject({ type, code, request_id: requestId });
  expect(body.error.message.length).toBeGreaterThan(0);
  return body.error;
}

test.describe("service endpoints", () => {
  test("GET /api/health answers 200 {status: ok}", async ({ request }) => {
    const res = await request.get("/api/health");
    expect(res.status()).toBe(200);
    expect(await res.json()).toMatchObject({ status: "ok", database: "ok" });
  });

  test("GET /v1/openapi.json is an OpenAPI 3.1 document of the payments API", async ({ request }) => {
    const res = await request.get("/v1/openapi.json");
    expect(res.status()).toBe(200);
    expectRequestId(res);
    const doc = (await res.json()) as { openapi: string; servers: { url: string }[]; paths: Record<string, Record<string, unknown>> };
    expect(doc.openapi).toMatch(/^3\.1\./);
    expect(doc.servers[0]?.url).toBe(seed().base_url);
    expect(Object.keys(doc.paths)).toEqual(expect.arrayContaining(["/v1/payments", "/v1/payments/{id}", "/v1/payments/preview"]));
    expect(Object.keys(doc.paths["/v1/payments"]!)).toEqual(expect.arrayContaining(["get", "post"]));
    expect(Object.keys(doc.paths["/v1/payments/{id}"]!)).toContain("get");
    expect(Object.keys(doc.paths["/v1/payments/preview"]!)).toContain("post");
  });

  test("the home page's example names this server's own address, not a fixed port", async ({ request, baseURL }) => {
    const home = await request.get("/");
    expect(home.status()).toBe(200);
    expect(await home.text()).toContain(`curl -X POST ${baseURL}/v1/payments`);
  });

  test("an idle connection is kept open 65 s, longer than load balancers and clients keep theirs", async ({ baseURL }) => {
    const agent = new http.Agent({ keepAlive: true });
    try {
      const headers = await new Promise<http.IncomingHttpHeaders>((resolve, reject) => {
        http.get(new URL("/api/health", baseURL), { agent }, (res) => res.resume().on("end", () => resolve(res.headers))).on("error", reject);
      });
      expect(headers.connection).toBe("keep-alive");
      expect(headers["keep-alive"]).toBe("timeout=65");
    } finally {
      agent.destroy();
    }
  });

  test("an unknown /v1 path, and /v1 itself, is a JSON 404 resource_missing", async ({ request }) => {
    for (const path of ["/v1/nothing-here", "/v1"]) {
      const res = await request.get(path, { headers: bearer(seed().keys.test) });
      await expectError(res, 404, "not_found", "resource_missing");
    }
  });

  test("another version of the API (/v2, /V1, /v1.1) is a JSON 404 naming the /v1 path, not the site's HTML page", async ({ request }) => {
    for (const [method, path, meant] of [
      ["GET", "/v2/payments", "/v1/payments"],
      ["POST", "/V1/payments", "/v1/payments"],
      ["GET", "/v1.1/payments/pay_00000000000000000000000000", "/v1/payments/pay_00000000000000000000000000"],
      ["GET", "/v2", "/v1"],
    ] as const) {
      const res = await request.fetch(path, { method, headers: bearer(seed().keys.test), data: method === "POST" ? {} : undefined, maxRedirects: 0 });
      expect((await expectError(res, 404, "not_found", "resource_missing")).message).toBe(
        `Unrecognized request URL (${method} ${path}). This API has one version, v1: ${method} ${meant}.`,
      );
    }
  });

  test("a /v1 path with a trailing slash is a 404 in the envelope naming the path meant; a page's is sent to the path without it", async ({ request }) => {
    for (const [method, path] of [
      ["POST", "/v1/payments/"],
      ["GET", "/v1/payments/pay_00000000000000000000000000/"],
    ] as const) {
      const res = await request.fetch(path, { method, headers: bearer(seed().keys.test), data: method === "POST" ? {} : undefined, maxRedirects: 0 });
      const error = await expectError(res, 404, "not_found", "resource_missing");
      expect(error.message).toBe(`Unrecognized request URL (${method} ${path}). Paths take no trailing slash: ${method} ${path.slice(0, -1)}.`);
    }
    // The same paths without the slash are served.
    expect((await request.get("/v1/payments?limit=1", { headers: bearer(seed().keys.test) })).status()).toBe(200);
    const page = await request.get("/pay/plink_00000000000000000000000000/?from=app", { maxRedirects: 0 });
    expect(page.status()).toBe(308);
    expect(page.headers()["location"]).toMatch(/\/pay\/plink_00000000000000000000000000\?from=app$/);
  });

  test("OPTIONS and the methods a path does not serve answer in the envelope too, with a Request-Id", async ({ request }) => {
    // Next would answer OPTIONS itself (204, no Request-Id, an Allow header naming every method).
    for (const [method, path] of [
      ["OPTIONS", "/v1/payments"],
      ["OPTIONS", "/v1/payments/pay_00000000000000000000000000"],
      ["OPTIONS", "/v1/openapi.json"],
      ["PUT", "/v1/payments"],
      ["DELETE", "/v1/openapi.json"],
    ] as const) {
      const res = await request.fetch(path, { method, headers: bearer(seed().keys.test) });
      expect((await expectError(res, 404, "not_found", "resource_missing")).message).toBe(`Unrecognized request URL (${method} ${path}).`);
    }
  });

  test("a DELETE or a GET with a body is refused, not read as if it had none", async ({ request }) => {
    const del = await request.delete("/v1/webhook_endpoints/we_00000000000000000000000000", { headers: bearer(seed().keys.test), data: { confirm: true } });
    expect((await expectError(del, 400, "invalid_request", "parameter_invalid")).message).toBe("This endpoint takes no request body.");
    // A filter sent as a body would otherwise be ignored, and the whole list answered.
    const get = await request.get("/v1/payments?limit=1", { headers: bearer(seed().keys.test), data: { status: "failed" } });
    expect((await expectError(get, 400, "invalid_request", "parameter_invalid")).message).toBe("This endpoint takes no request body.");
    expect((await request.get("/v1/payments?limit=1", { headers: bearer(seed().keys.test) })).status()).toBe(200);
  });
});

test.describe("quickstart: create, read, list, replay", () => {
  test.describe.configure({ mode: "serial" });

  const idempotencyKey = `e2e-${randomUUID()}`;
  const reference = `order-${randomUUID().slice(0, 8)}`;
  const createBody = {
    amount: 1000,
    currency: "USD",
    method: "wallet",
    reference,
    customer: { msisdn: "077 123 4567" },
    metadata: { order_id: reference },
  };
  let quote: { fee: number; charged_amount: number; fee_bearer: string };
  let created: { id: string; created_at: string; expires_at: string; charged_amount: number };
  let createdText: string;
  let createdRequestId: string;

  test("POST /v1/payments/preview quotes the fee and the charged amount", async ({ request }) => {
    const res = await request.post("/v1/payments/preview", {
      headers: bearer(seed().keys.test),
      data: { amount: 1000, currency: "USD", method: "wallet" },
    });
    expect(res.status(), await res.text()).toBe(200);
    expectRequestId(res);
    const body = await res.json();
    // Standard plan: 1.5 % (150 bps) of 10.00 = 0.15.
    expect(body).toMatchObject({ object: "payment_preview", amount: 1000, currency: "USD", fee: 15 });
    expect(["merchant", "customer"]).toContain(body.fee_bearer);
    expect(body.charged_amount).toBe(body.fee_bearer === "customer" ? 1000 + body.fee : 1000);
    quote = body;
  });

  test("POST /v1/payments with an Idempotency-Key creates a payment awaiting the customer", async ({ request }) => {
    const res = await request.post("/v1/payments", {
      headers: { ...bearer(seed().keys.test), "Idempotency-Key": idempotencyKey },
      data: createBody,
    });
    createdText = await res.text();
    expect(res.status(), createdText).toBe(201);
    expect(res.headers()["content-type"]).toContain("application/json");
    expect(res.headers()["idempotent-replayed"]).toBeUndefined();
    createdRequestId = expectRequestId(res);

    const body = JSON.parse(createdText);
    expect(body).toMatchObject({
      object: "payment",
      livemode: false,
      amount: 1000,
      currency: "USD",
      method: "wallet",
      reference,
      status: "awaiting_customer",
      customer: { msisdn: "263771234567" },
      customer_msisdn_masked: "+263 77 *** *567",
      fee: quote.fee,
      fee_bearer: quote.fee_bearer,
      charged_amount: quote.charged_amount,
      failure_code: null,
      metadata: { order_id: reference },
    });
    expect(body.id).toMatch(/^pay_[0-9a-z]{26}$/);
    expect(body.customer_msisdn_masked).not.toContain("1234567");
    expect(Date.parse(body.expires_at)).toBeGreaterThan(Date.parse(body.created_at));
    created = body;
  });

  test("GET /v1/payments/{id} returns the same payment", async ({ request }) => {
    // The quickstart polls until the customer answers; one read shows the same payment.
    const res = await request.get(`/v1/payments/${created.id}`, { headers: bearer(seed().keys.test) });
    expect(res.status(), await res.text()).toBe(200);
    expectRequestId(res);
    const body = await res.json();
    expect(body).toMatchObject({ id: created.id, object: "payment", reference, charged_amount: created.charged_amount, expires_at: created.expires_at });
    expect(["awaiting_customer", "unknown", "succeeded"]).toContain(body.status);
  });

  test("GET /v1/payments?limit=5 lists it, newest first", async ({ request }) => {
    const res = await request.get("/v1/payments?limit=5", { headers: bearer(seed().keys.test) });
    expect(res.status(), await res.text()).toBe(200);
    expectRequestId(res);
    const body = (await res.json()) as { object: string; data: { id: string }[]; has_more: boolean; url: string };
    expect(body).toMatchObject({ object: "list", url: "/v1/payments" });
    expect(typeof body.has_more).toBe("boolean");
    expect(body.data.length).toBeLessThanOrEqual(5);
    expectNewestFirstWith(body.data, created.id);

    // The README's filtered form: status and a substring of the reference. The sandbox's customer
    // answers a few seconds after the prompt: the payment is found under the status it has by then.
    const filtered = async (status: string) => {
      const res = await request.get(`/v1/payments?limit=10&status=${status}&search=${encodeURIComponent(reference.slice(2))}`, { headers: bearer(seed().keys.test) });
      expect(res.status(), await res.text()).toBe(200);
      return ((await res.json()) as { data: { id: string }[] }).data.map((p) => p.id);
    };
    await expect.poll(() => filtered("succeeded"), { timeout: 15_000 }).toEqual([created.id]);
    expect(await filtered("awaiting_customer")).toEqual([]);
  });

  test("replaying the POST with the same key returns the byte-identical response", async ({ request }) => {
    const res = await request.post("/v1/payments", {
      headers: { ...bearer(seed().keys.test), "Idempotency-Key": idempotencyKey },
      data: createBody,
    });
    expect(res.status()).toBe(201);
    expect(res.headers()["idempotent-replayed"]).toBe("true");
    // A new request, so a new Request-Id; the body is the stored one.
    expect(expectRequestId(res)).not.toBe(createdRequestId);
    expect(await res.text()).toBe(createdText);
  });

  test("the same key with a different body is refused with 409 idempotency_key_reused", async ({ request }) => {
    const res = await request.post("/v1/payments", {
      headers: { ...bearer(seed().keys.test), "Idempotency-Key": idempotencyKey },
      data: { ...createBody, amount: 2000 },
    });
    await expectError(res, 409, "idempotency_conflict", "idempotency_key_reused");
  });

  test("HTTP Basic auth with the key as user name works (curl -u sk_test_…:)", async ({ request }) => {
    const one = await request.get(`/v1/payments/${created.id}`, { headers: basic(seed().keys.test) });
    expect(one.status(), await one.text()).toBe(200);
    expectRequestId(one);
    expect((await one.json()).id).toBe(created.id);

    const list = await request.get("/v1/payments?limit=5", { headers: basic(seed().keys.test) });
    expect(list.status()).toBe(200);
    expectNewestFirstWith(((await list.json()) as { data: { id: string }[] }).data, created.id);
  });

  test("the live key cannot see the test payment: 404 resource_missing", async ({ request }) => {
    const res = await request.get(`/v1/payments/${created.id}`, { headers: bearer(seed().keys.live) });
    const error = await expectError(res, 404, "not_found", "resource_missing");
    expect(error.message).toContain(created.id);
  });

  test("a restricted payments:read key reads but cannot create: 403 scope_missing", async ({ request }) => {
    const restricted = seed().keys.restricted;
    expect(restricted, "seed run with --restricted payments:read").toBeTruthy();
    const read = await request.get(`/v1/payments/${created.id}`, { headers: bearer(restricted!) });
    expect(read.status()).toBe(200);
    const res = await request.post("/v1/payments", {
      headers: { ...bearer(restricted!), "Idempotency-Key": `e2e-${randomUUID()}` },
      data: { ...createBody, reference: `${reference}-rk` },
    });
    await expectError(res, 403, "permission_error", "scope_missing");
  });
});

test.describe("authentication and required headers", () => {
  test("no API key: 401 api_key_invalid", async ({ request }) => {
    const res = await request.get("/v1/payments");
    await expectError(res, 401, "authentication_error", "api_key_invalid");
  });

  test("an unknown API key: 401 api_key_invalid", async ({ request }) => {
    const res = await request.get("/v1/payments", { headers: bearer(`sk_test_${"0".repeat(32)}`) });
    await expectError(res, 401, "authentication_error", "api_key_invalid");
  });

  test("POST /v1/payments without an Idempotency-Key: 400 idempotency_key_required", async ({ request }) => {
    const res = await request.post("/v1/payments", {
      headers: bearer(seed().keys.test),
      data: { amount: 500, currency: "USD", method: "wallet", reference: `order-${randomUUID().slice(0, 8)}`, customer: { msisdn: "0771234567" } },
    });
    const error = await expectError(res, 400, "invalid_request", "idempotency_key_required");
    expect(error).toMatchObject({ param: "Idempotency-Key" });
  });
});
