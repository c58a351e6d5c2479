import { randomUUID } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import { api } from "@/server/testing/api";
import { expectError } from "@/server/testing/expect-error";
import { seedSucceededPayment, seedTestMerchant, type TestMerchant } from "@/server/testing/fixtures";

/**
 * A create body's null, for an optional field whose resource reads null when it is not set, is
 * the same as leaving the field out: a client that writes unset fields as null, or sends back the
 * shape it read, is not refused. A wrong value is still refused, naming the field.
 */
describe("null in a create body's optional fields", () => {
  let m: TestMerchant;
  beforeAll(async () => {
    m = await seedTestMerchant();
  });
  const post = (path: string, body: Record<string, unknown>) => api("POST", path, { key: m.keys.test, body, idempotencyKey: randomUUID() });

  it("refunds: reason null", async () => {
    const p = await seedSucceededPayment(m);
    const res = await post("/v1/refunds", { payment: p.id, amount: 100, reason: null });
    expect(res.status).toBe(201);
    expect(res.body.reason).toBeNull();
    expectError(await post("/v1/refunds", { payment: p.id, amount: 100, reason: "bored" }), 400, "invalid_request", "parameter_invalid", "reason");
  });

  it("webhook endpoints: description null", async () => {
    const res = await post("/v1/webhook_endpoints", { url: "http://127.0.0.1:4000/hooks", enabled_events: ["*"], description: null });
    expect(res.status).toBe(201);
    expect(res.body.description).toBeNull();
    expectError(await post("/v1/webhook_endpoints", { url: "http://127.0.0.1:4000/hooks", enabled_events: ["*"], description: 7 }), 400, "invalid_request", "parameter_invalid", "description");
  });

  it("payment links: expires_at null", async () => {
    const res = await post("/v1/payment_links", { amount: 500, currency: "USD", description: "Fees", expires_at: null });
    expect(res.status).toBe(201);
    expect(res.body.expires_at).toBeNull();
  });

  it("checkout sessions: cancel_url null", async () => {
    const res = await post("/v1/checkout_sessions", { amount: 500, currency: "USD", reference: `null-${randomUUID()}`, success_url: "https://shop.test/done", cancel_url: null });
    expect(res.status).toBe(201);
    expect(res.body.cancel_url).toBeNull();
  });
});
