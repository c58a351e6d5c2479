import { beforeAll, describe, expect, it } from "vitest";
import { newId } from "@/server/domain/ids";
import { api } from "@/server/testing/api";
import { expectError } from "@/server/testing/expect-error";
import { seedPayment, seedTestMerchant, type TestMerchant } from "@/server/testing/fixtures";

const SETTLEMENT_FIELDS = [
  "amount",
  "created_at",
  "currency",
  "failed_at",
  "failure_message",
  "fee_total",
  "gross_amount",
  "id",
  "livemode",
  "object",
  "paid_at",
  "payment_count",
  "period_end",
  "period_start",
  "refund_count",
  "refund_total",
  "status",
];

const run = (key: string) => api("POST", "/v1/test_helpers/settlements/run", { key });

describe("/v1/settlements", () => {
  let m: TestMerchant;
  let other: TestMerchant;
  let paymentIds: string[];
  let references: string[];
  let settlementId: string;

  beforeAll(async () => {
    [m, other] = await Promise.all([seedTestMerchant(), seedTestMerchant()]);
    const at = new Date(Date.now() - 60_000);
    // 23 succeeded test payments (fee 15 each, merchant-borne), one failed, one live.
    const seeded = await Promise.all(Array.from({ length: 23 }, (_, i) => seedPayment(m, "succeeded", { amount: 1_000 + i, at: new Date(at.getTime() + i) })));
    paymentIds = seeded.map((p) => p.id);
    references = seeded.map((p) => p.reference);
    await seedPayment(m, "failed", { at });
    await seedPayment(m, "succeeded", { livemode: true, at });
  });

  it("the test helper batches succeeded test payments now, once", async () => {
    const res = await run(m.keys.test);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ object: "list", has_more: false, url: "/v1/test_helpers/settlements/run" });
    expect(res.body.data).toHaveLength(1);
    const s = res.body.data[0];
    expect(Object.keys(s).sort()).toEqual(SETTLEMENT_FIELDS);
    const gross = 23 * 1_000 + (22 * 23) / 2;
    expect(s).toMatchObject({
      object: "settlement",
      livemode: false,
      status: "pending",
      currency: "USD",
      gross_amount: gross,
      fee_total: 23 * 15,
      refund_total: 0,
      amount: gross - 23 * 15,
      payment_count: 23,
      refund_count: 0,
      paid_at: null,
    });
    expect(s.id).toMatch(/^stl_[0-9a-z]{26}$/);
    settlementId = s.id;
    // Nothing left to settle: a second run makes nothing.
    expect((await run(m.keys.test)).body.data).toEqual([]);
  });

  it("lists batches and retrieves one with the first page of its lines", async () => {
    const list = await api("GET", "/v1/settlements", { key: m.keys.test });
    expect(list.status).toBe(200);
    expect(list.body.data.map((s: { id: string }) => s.id)).toEqual([settlementId]);
    expect((await api("GET", "/v1/settlements?status=paid", { key: m.keys.test })).body.data).toEqual([]);

    const one = await api("GET", `/v1/settlements/${settlementId}`, { key: m.keys.test });
    expect(one.status).toBe(200);
    expect(one.body.lines).toMatchObject({ object: "list", has_more: true, url: `/v1/settlements/${settlementId}/lines` });
    expect(one.body.lines.data).toHaveLength(10);
    expect(one.body.lines.data[0]).toEqual({
      object: "settlement_line",
      livemode: false,
      type: "payment",
      source: paymentIds[22],
      payment: paymentIds[22],
      reference: references[22],
      amount: 1_022,
      fee: 15,
      net: 1_007,
      occurred_at: expect.any(String),
    });
  });

  it("pages through every line with keyset cursors, both ways", async () => {
    const seen: string[] = [];
    let after: string | undefined;
    for (;;) {
      const page = await api("GET", `/v1/settlements/${settlementId}/lines?limit=10${after ? `&starting_after=${after}` : ""}`, { key: m.keys.test });
      expect(page.status).toBe(200);
      seen.push(...page.body.data.map((l: { source: string }) => l.source));
      if (!page.body.has_more) break;
      after = seen.at(-1);
    }
    expect(seen).toEqual([...paymentIds].reverse());
    const before = await api("GET", `/v1/settlements/${settlementId}/lines?limit=5&ending_before=${seen[10]}`, { key: m.keys.test });
    expect(before.body.data.map((l: { source: string }) => l.source)).toEqual(seen.slice(5, 10));

    // A cursor that is no line of this batch (a payment not in it, or none) is missing, not a position.
    const elsewhere = (await seedPayment(other, "succeeded")).id;
    for (const id of [elsewhere, newId("payment")]) {
      const res = await api("GET", `/v1/settlements/${settlementId}/lines?starting_after=${id}`, { key: m.keys.test });
      expect(expectError(res, 404, "not_found", "resource_missing", "starting_after").message).toBe(`No such settlement line: '${id}'`);
    }
  });

  it("is invisible to other merchants and to the live environment", async () => {
    for (const key of [other.keys.test, m.keys.live]) {
      expectError(await api("GET", `/v1/settlements/${settlementId}`, { key }), 404, "not_found", "resource_missing", "id");
      expectError(await api("GET", `/v1/settlements/${settlementId}/lines`, { key }), 404, "not_found", "resource_missing", "id");
      expect((await api("GET", "/v1/settlements", { key })).body.data).toEqual([]);
    }
    expectError(await api("GET", "/v1/settlements/stl_nope", { key: m.keys.test }), 404, "not_found", "resource_missing", "id");
  });

  it("the test helper does not exist for live keys", async () => {
    expectError(await run(m.keys.live), 404, "not_found", "resource_missing", "path");
  });

  it("needs settlements:read", async () => {
    const without = await m.restrictedKey(["payments:read"]);
    expectError(await api("GET", "/v1/settlements", { key: without }), 403, "permission_error", "scope_missing");
    expectError(await api("GET", `/v1/settlements/${settlementId}`, { key: without }), 403, "permission_error", "scope_missing");
    const reader = await m.restrictedKey(["settlements:read"]);
    expect((await api("GET", `/v1/settlements/${settlementId}`, { key: reader })).status).toBe(200);
    expectError(await api("GET", "/v1/settlements", { key: null }), 401, "authentication_error", "api_key_invalid");
  });

  it("refuses bad parameters with parameter_invalid", async () => {
    expectError(await api("GET", "/v1/settlements?limit=0", { key: m.keys.test }), 400, "invalid_request", "parameter_invalid", "limit");
    expectError(await api("GET", "/v1/settlements?status=sent", { key: m.keys.test }), 400, "invalid_request", "parameter_invalid", "status");
    expectError(await api("GET", "/v1/settlements?starting_after=pay_x", { key: m.keys.test }), 400, "invalid_request", "parameter_invalid", "starting_after");
    expectError(await api("GET", `/v1/settlements/${settlementId}/lines?starting_after=evt_x`, { key: m.keys.test }), 400, "invalid_request", "parameter_invalid", "starting_after");
    expectError(await api("GET", "/v1/settlements?currency=USD", { key: m.keys.test }), 400, "invalid_request", "parameter_invalid", "currency");
  });
});
