import { and, eq } from "drizzle-orm";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { getDb } from "@/db/client";
import { payments } from "@/db/schema";
import { quoteFee } from "@/server/domain/fees";
import { newId } from "@/server/domain/ids";
import { normaliseMsisdn } from "@/server/domain/msisdn";
import { distinctivePart, sharedStart } from "@/server/domain/payment-search";
import type { PaymentStatus } from "@/server/domain/payment-status";
import { sandbox } from "@/server/providers/registry";
import { sandboxReference } from "@/server/providers/sandbox/client";
import { api } from "@/server/testing/api";
import { setEnv } from "@/server/testing/env";
import { expectError } from "@/server/testing/expect-error";
import { paymentBody, seedPayment, seedTestMerchant, uniqueRef, type TestMerchant } from "@/server/testing/fixtures";

let seq = 0;
const idemKey = () => `payments-test-${Date.now().toString(36)}-${++seq}`;
const create = (key: string, body: Record<string, unknown>) => api("POST", "/v1/payments", { key, body, idempotencyKey: idemKey() });

const PAYMENT_FIELDS = [
  "amount",
  "amount_refunded",
  "charged_amount",
  "checkout_session",
  "created_at",
  "currency",
  "customer",
  "customer_msisdn_masked",
  "expires_at",
  "failure_code",
  "failure_message",
  "fee",
  "fee_bearer",
  "id",
  "livemode",
  "metadata",
  "method",
  "object",
  "payment_link",
  "provider_reference",
  "reference",
  "status",
  "status_transitions",
];
const RFC3339_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;

afterEach(() => {
  sandbox.resetFaults();
});

describe("POST /v1/payments", () => {
  let m: TestMerchant;
  beforeAll(async () => {
    m = await seedTestMerchant();
  });

  it("creates a payment with every field, awaiting the customer, prompt sent", async () => {
    const before = Date.now();
    const reference = uniqueRef("inv");
    const res = await create(m.keys.test, {
      amount: 1_234,
      currency: "USD",
      method: "wallet",
      reference,
      customer: { msisdn: "077 123 4567" },
      metadata: { order_id: "A-42", note: "two coffees" },
    });
    const after = Date.now();
    expect(res.status).toBe(201);
    const p = res.body;
    expect(Object.keys(p).sort()).toEqual(PAYMENT_FIELDS);
    expect(p).toEqual({
      id: expect.stringMatching(/^pay_[0-9a-z]{26}$/),
      object: "payment",
      livemode: false,
      amount: 1_234,
      currency: "USD",
      method: "wallet",
      reference,
      customer: { msisdn: "263771234567" },
      customer_msisdn_masked: "+263 77 *** *567",
      fee: 19, // 1.5 % of 12.34 = 0.1851, to the cent
      fee_bearer: "merchant",
      charged_amount: 1_234,
      amount_refunded: 0,
      status: "awaiting_customer",
      failure_code: null,
      failure_message: null,
      provider_reference: sandboxReference(p.id),
      metadata: { order_id: "A-42", note: "two coffees" },
      payment_link: null,
      checkout_session: null,
      created_at: expect.stringMatching(RFC3339_UTC),
      expires_at: expect.stringMatching(RFC3339_UTC),
      status_transitions: { unknown_at: null, succeeded_at: null, failed_at: null, expired_at: null, unresolved_at: null },
    });
    const created = Date.parse(p.created_at);
    expect(created).toBeGreaterThanOrEqual(before - 5);
    expect(created).toBeLessThanOrEqual(after + 5);
    expect(Date.parse(p.expires_at) - created).toBe(180_000);
    expect(sandbox.pushCalls(p.id)).toBe(1);

    const [row] = await (await getDb()).select().from(payments).where(eq(payments.id, p.id));
    expect(row!.promptSentAt).toBeInstanceOf(Date);
    expect(row!.merchantId).toBe(m.merchant.id);

    const fetched = await api("GET", `/v1/payments/${p.id}`, { key: m.keys.test });
    expect(fetched.status).toBe(200);
    expect(fetched.body).toEqual(p);
  });

  it("adds the fee to the charge when the customer bears it, and marks live payments livemode", async () => {
    const customerPays = await seedTestMerchant({ feeBearer: "customer" });
    const test = await create(customerPays.keys.test, paymentBody({ amount: 1_234 }));
    expect(test.status).toBe(201);
    expect(test.body).toMatchObject({ amount: 1_234, fee: 19, fee_bearer: "customer", charged_amount: 1_253, livemode: false });

    const live = await create(customerPays.keys.live, paymentBody({ amount: 10_000, currency: "ZWG" }));
    expect(live.status).toBe(201);
    expect(live.body).toMatchObject({ amount: 10_000, currency: "ZWG", fee: 150, fee_bearer: "customer", charged_amount: 10_150, livemode: true });
    expect(live.body.id).toMatch(/^pay_/);

    const merchantPays = await create(m.keys.live, paymentBody({ amount: 10_000 }));
    expect(merchantPays.body).toMatchObject({ fee: 150, fee_bearer: "merchant", charged_amount: 10_000, livemode: true });
  });

  it("sets expires_at from the merchant's payment_expiry_seconds", async () => {
    const slow = await seedTestMerchant({ paymentExpirySeconds: 600 });
    const res = await create(slow.keys.test, paymentBody());
    expect(res.status).toBe(201);
    expect(Date.parse(res.body.expires_at) - Date.parse(res.body.created_at)).toBe(600_000);
  });

  it.each([
    ["0771234567", "263771234567"],
    ["077 123 4567", "263771234567"],
    ["+263 77 123 4567", "263771234567"],
    ["263771234567", "263771234567"],
    ["00263771234567", "263771234567"],
    ["(077) 123-4567", "263771234567"],
    ["771234567", "263771234567"],
    ["  078.987.6543 ", "263789876543"],
    ["0712 345 678", "263712345678"],
    ["+263732345678", "263732345678"],
  ])("accepts %j and stores the strict form %s", async (loose, strict) => {
    const res = await create(m.keys.test, paymentBody({ customer: { msisdn: loose } }));
    expect(res.status).toBe(201);
    expect(res.body.customer).toEqual({ msisdn: strict });
    // The mask shows the network prefix and the last three digits, nothing more.
    const masked: string = res.body.customer_msisdn_masked;
    expect(masked).toBe(`+263 ${strict.slice(3, 5)} *** *${strict.slice(9)}`);
    expect(masked.replace(/\D/g, "")).toBe(`263${strict.slice(3, 5)}${strict.slice(9)}`);
    expect(masked).not.toContain(strict.slice(5, 9));
  });

  it.each([
    ["0242 123 456", "That looks like a landline number. Enter a mobile wallet number, for example 077 123 4567."],
    ["+27 82 123 4567", "Only Zimbabwean mobile numbers can be charged. Enter a number such as 077 123 4567."],
    ["077-CALL-NOW", "Enter a mobile number using digits only, for example 077 123 4567."],
    ["", "Enter your mobile number, for example 077 123 4567."],
    ["   ", "Enter your mobile number, for example 077 123 4567."],
    ["077123456", undefined],
    ["07712345678", undefined],
    ["0721234567", undefined],
    ["+263 +77 123 4567", undefined],
    ["0".repeat(40), undefined],
  ])("refuses %j with msisdn_invalid and the domain's message verbatim", async (input, literal) => {
    const domain = normaliseMsisdn(input);
    expect(domain.ok).toBe(false);
    const res = await create(m.keys.test, paymentBody({ customer: { msisdn: input } }));
    const err = expectError(res, 400, "invalid_request", "msisdn_invalid", "customer.msisdn");
    expect(err.message).toBe(domain.ok ? "" : domain.message);
    if (literal) expect(err.message).toBe(literal);
  });

  it("refuses a reference the merchant already used in that environment, and only there", async () => {
    const other = await seedTestMerchant();
    const reference = uniqueRef("dup");
    const first = await create(m.keys.test, paymentBody({ reference }));
    expect(first.status).toBe(201);

    const again = await create(m.keys.test, paymentBody({ reference, amount: 5_000 }));
    const err = expectError(again, 400, "invalid_request", "reference_in_use", "reference");
    expect(err.message).toContain(reference);

    const live = await create(m.keys.live, paymentBody({ reference }));
    expect(live.status).toBe(201);
    expect(live.body).toMatchObject({ reference, livemode: true });
    const elsewhere = await create(other.keys.test, paymentBody({ reference }));
    expect(elsewhere.status).toBe(201);
    expect(elsewhere.body.reference).toBe(reference);

    // References are case-sensitive and exact: a near miss is a different reference.
    expect((await create(m.keys.test, paymentBody({ reference: reference.toUpperCase() }))).status).toBe(201);

    const db = await getDb();
    const rows = await db.select().from(payments).where(and(eq(payments.merchantId, m.merchant.id), eq(payments.reference, reference)));
    expect(rows.map((r) => r.livemode).sort()).toEqual([false, true]);
  });

  it("answers 201 failed/push_rejected when the provider refuses the prompt (sandbox …06)", async () => {
    const res = await create(m.keys.test, paymentBody({ customer: { msisdn: "263770000006" } }));
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      status: "failed",
      failure_code: "push_rejected",
      failure_message: expect.any(String),
      provider_reference: sandboxReference(res.body.id),
      status_transitions: { failed_at: expect.stringMatching(RFC3339_UTC), unknown_at: null, succeeded_at: null },
    });
    expect(res.body.failure_message.length).toBeGreaterThan(0);
  });

  describe("when the provider cannot be reached", () => {
    let restore: () => void;
    beforeAll(() => {
      restore = setEnv({ PROVIDER_PUSH_TIMEOUT_MS: "200" });
    });
    afterAll(() => restore());

    it("answers 201 unknown (never failed) when the push times out", async () => {
      sandbox.faults.push = "timeout";
      const started = Date.now();
      const res = await create(m.keys.test, paymentBody());
      const took = Date.now() - started;
      expect(res.status).toBe(201);
      expect(took).toBeGreaterThanOrEqual(190);
      expect(took).toBeLessThan(5_000);
      expect(res.body).toMatchObject({
        status: "unknown",
        failure_code: null,
        failure_message: null,
        provider_reference: null,
        status_transitions: { unknown_at: expect.stringMatching(RFC3339_UTC), failed_at: null, succeeded_at: null, expired_at: null, unresolved_at: null },
      });
      const unknownAt = Date.parse(res.body.status_transitions.unknown_at);
      expect(unknownAt).toBeGreaterThanOrEqual(started);
      expect(unknownAt).toBeGreaterThanOrEqual(Date.parse(res.body.created_at));
      expect(sandbox.pushCalls(res.body.id)).toBe(1);

      const fetched = await api("GET", `/v1/payments/${res.body.id}`, { key: m.keys.test });
      expect(fetched.body.status).toBe("unknown");
    });

    it("answers 201 unknown when the connection to the provider fails", async () => {
      sandbox.faults.push = "error";
      const res = await create(m.keys.test, paymentBody());
      expect(res.status).toBe(201);
      expect(res.body).toMatchObject({ status: "unknown", failure_code: null, status_transitions: { unknown_at: expect.stringMatching(RFC3339_UTC), failed_at: null } });
    });
  });
});

describe("GET /v1/payments/{id}", () => {
  it("finds the merchant's own payment, and nobody else's", async () => {
    const a = await seedTestMerchant();
    const b = await seedTestMerchant();
    const created = await create(a.keys.test, paymentBody());
    const id: string = created.body.id;

    const found = await api("GET", `/v1/payments/${id}`, { key: a.keys.test });
    expect(found.status).toBe(200);
    expect(found.text).toBe(created.text);

    const neverExisted = newId("payment");
    const answers = [
      await api("GET", `/v1/payments/${id}`, { key: b.keys.test }),
      await api("GET", `/v1/payments/${id}`, { key: b.keys.live }),
      await api("GET", `/v1/payments/${id}`, { key: a.keys.live }),
      await api("GET", `/v1/payments/${neverExisted}`, { key: a.keys.test }),
    ];
    const shapes = answers.map((res, i) => {
      const err = expectError(res, 404, "not_found", "resource_missing", "id");
      return err.message.replace(i === 3 ? neverExisted : id, "<id>");
    });
    // Another merchant's, another environment's and a never-made id are indistinguishable.
    expect(new Set(shapes)).toEqual(new Set(["No such payment: '<id>'"]));
  });

  it.each(["nope", "pay_", "pay_123", `pay_${"Z".repeat(26)}`, "re_01m7zzzzzzzzzzzzzzzzzzzzzz", "%20"])("answers 404 resource_missing for %j", async (id) => {
    const m = await seedTestMerchant();
    const res = await api("GET", `/v1/payments/${id}`, { key: m.keys.test });
    expectError(res, 404, "not_found", "resource_missing", "id");
  });
});

describe("POST /v1/payments/preview", () => {
  const amounts: [number, "USD" | "ZWG", number][] = [
    [1, "USD", 1], // below the minimum
    [33, "USD", 1], // 0.495 → 0, minimum 1
    [100, "USD", 2], // 1.5 → 2: half rounds up
    [1_234, "USD", 19],
    [10_000, "ZWG", 150],
    [99_999_999, "USD", 1_500_000],
  ];

  it.each([["merchant" as const], ["customer" as const]])("quotes exactly what creation charges when the %s bears the fee", async (bearer) => {
    const m = await seedTestMerchant({ feeBearer: bearer });
    for (const [amount, currency, fee] of amounts) {
      const preview = await api("POST", "/v1/payments/preview", { key: m.keys.test, body: { amount, currency, method: "wallet" } });
      expect(preview.status).toBe(200);
      const charged = bearer === "customer" ? amount + fee : amount;
      expect(preview.body).toEqual({ object: "payment_preview", livemode: false, amount, currency, fee, fee_bearer: bearer, charged_amount: charged });
      expect(quoteFee(m.merchant.feePlan, bearer, amount, currency).fee).toBe(fee);

      const created = await create(m.keys.test, paymentBody({ amount, currency }));
      expect(created.status).toBe(201);
      expect({ fee: created.body.fee, fee_bearer: created.body.fee_bearer, charged_amount: created.body.charged_amount }).toEqual({
        fee: preview.body.fee,
        fee_bearer: preview.body.fee_bearer,
        charged_amount: preview.body.charged_amount,
      });
    }
  });

  it("creates nothing and needs no Idempotency-Key", async () => {
    const m = await seedTestMerchant();
    const res = await api("POST", "/v1/payments/preview", { key: m.keys.live, body: { amount: 500, currency: "USD", method: "wallet" } });
    expect(res.status).toBe(200);
    const list = await api("GET", "/v1/payments", { key: m.keys.live });
    expect(list.body.data).toEqual([]);
  });

  it.each([
    [{ amount: 0, currency: "USD", method: "wallet" }, "amount"],
    [{ amount: "500", currency: "USD", method: "wallet" }, "amount"],
    [{ amount: 1e12, currency: "USD", method: "wallet" }, "amount"],
    [{ amount: 500, currency: "EUR", method: "wallet" }, "currency"],
    [{ amount: 500, currency: "USD", method: "card" }, "method"],
    [{ amount: 500, currency: "USD" }, "method"],
    [{ amount: 500, currency: "USD", method: "wallet", reference: "x" }, "reference"],
    [{ amount: 500, currency: "USD", method: "wallet", customer: { msisdn: "0771234567" } }, "customer"],
  ])("refuses %j naming %s", async (body, param) => {
    const m = await seedTestMerchant();
    const res = await api("POST", "/v1/payments/preview", { key: m.keys.test, body });
    expectError(res, 400, "invalid_request", "parameter_invalid", param);
  });
});

type NewPayment = typeof payments.$inferInsert;

function paymentRow(merchantId: string, livemode: boolean, at: Date, over: Partial<NewPayment> = {}): NewPayment {
  const amount = over.amount ?? 1_000;
  return {
    id: newId("payment", at),
    merchantId,
    livemode,
    amount,
    currency: "USD",
    method: "wallet",
    reference: uniqueRef("row"),
    customerMsisdn: "263771234567",
    network: "ecocash",
    fee: 15,
    feeBearer: "merchant",
    chargedAmount: amount,
    status: "awaiting_customer",
    provider: "sandbox",
    metadata: {},
    expiresAt: new Date(at.getTime() + 180_000),
    createdAt: at,
    updatedAt: at,
    ...over,
  };
}

async function insertRows(rows: NewPayment[]) {
  const db = await getDb();
  for (let i = 0; i < rows.length; i += 500) await db.insert(payments).values(rows.slice(i, i + 500));
}

type ListBody = { object: string; data: { id: string; [k: string]: unknown }[]; has_more: boolean; url: string };

describe("GET /v1/payments: pagination", () => {
  const COUNT = 1_000;
  let m: TestMerchant;
  let newestFirst: string[];

  beforeAll(async () => {
    m = await seedTestMerchant();
    const other = await seedTestMerchant();
    const base = Date.now() - 2 * 24 * 60 * 60 * 1000;
    const rows: NewPayment[] = [];
    for (let i = 0; i < COUNT; i++) rows.push(paymentRow(m.merchant.id, false, new Date(base + i * 60_000), { reference: `page-${String(i).padStart(4, "0")}` }));
    // Interleaved in time: the other environment and another merchant, which must never show.
    for (let i = 0; i < 50; i++) {
      rows.push(paymentRow(m.merchant.id, true, new Date(base + i * 20 * 60_000 + 30_000)));
      rows.push(paymentRow(other.merchant.id, false, new Date(base + i * 20 * 60_000 + 30_000)));
    }
    await insertRows(rows);
    newestFirst = rows
      .filter((r) => r.merchantId === m.merchant.id && !r.livemode)
      .map((r) => r.id!)
      .reverse();
  });

  const list = async (qs: string): Promise<ListBody> => {
    const res = await api<ListBody>("GET", `/v1/payments${qs}`, { key: m.keys.test });
    expect(res.status, res.text).toBe(200);
    expect(res.body.object).toBe("list");
    expect(res.body.url).toBe("/v1/payments");
    return res.body;
  };

  it("answers 10 newest first by default", async () => {
    const page = await list("");
    expect(page.data.map((p) => p.id)).toEqual(newestFirst.slice(0, 10));
    expect(page.has_more).toBe(true);
    expect(Object.keys(page).sort()).toEqual(["data", "has_more", "object", "url"]);
    expect(page.data[0]).toMatchObject({ object: "payment", livemode: false, reference: "page-0999" });
  });

  it.each([100, 7])("walks all 1,000 with starting_after and back with ending_before, limit %i", async (limit) => {
    const forward: string[] = [];
    let page = await list(`?limit=${limit}`);
    let pages = 1;
    for (;;) {
      expect(page.data.length).toBe(Math.min(limit, COUNT - forward.length));
      forward.push(...page.data.map((p) => p.id));
      if (!page.has_more) break;
      page = await list(`?limit=${limit}&starting_after=${page.data.at(-1)!.id}`);
      pages++;
    }
    expect(pages).toBe(Math.ceil(COUNT / limit));
    expect(forward).toEqual(newestFirst);

    // Past the end: nothing more.
    const end = await list(`?limit=${limit}&starting_after=${newestFirst.at(-1)}`);
    expect(end).toMatchObject({ data: [], has_more: false });

    // And back from the oldest to the newest.
    const backward: string[] = [];
    page = await list(`?limit=${limit}&ending_before=${newestFirst.at(-1)}`);
    for (;;) {
      expect(page.data.length).toBeGreaterThan(0);
      expect(page.data.length).toBeLessThanOrEqual(limit);
      const ids = page.data.map((p) => p.id);
      expect([...ids].sort().reverse()).toEqual(ids); // each page is newest first too
      backward.unshift(...ids);
      if (!page.has_more) break;
      page = await list(`?limit=${limit}&ending_before=${ids[0]}`);
    }
    expect(backward).toEqual(newestFirst.slice(0, COUNT - 1));
    expect(new Set(backward).size).toBe(COUNT - 1);

    const beforeStart = await list(`?limit=${limit}&ending_before=${newestFirst[0]}`);
    expect(beforeStart).toMatchObject({ data: [], has_more: false });
  });

  it("answers a page before a cursor in the middle with the items just newer than it", async () => {
    const page = await list(`?limit=3&ending_before=${newestFirst[500]}`);
    expect(page.data.map((p) => p.id)).toEqual(newestFirst.slice(497, 500));
    expect(page.has_more).toBe(true);
    const after = await list(`?limit=3&starting_after=${newestFirst[500]}`);
    expect(after.data.map((p) => p.id)).toEqual(newestFirst.slice(501, 504));
  });

  it("refuses a cursor of another environment or merchant, or one that never existed, exactly as it would the id itself", async () => {
    const db = await getDb();
    const [live] = await db.select().from(payments).where(and(eq(payments.merchantId, m.merchant.id), eq(payments.livemode, true))).limit(1);
    const theirs = await seedPayment(await seedTestMerchant(), "succeeded");
    const made = newId("payment");
    for (const id of [live!.id, theirs.id, made]) {
      for (const param of ["starting_after", "ending_before"]) {
        const res = await api("GET", `/v1/payments?limit=5&${param}=${id}`, { key: m.keys.test });
        expect(expectError(res, 404, "not_found", "resource_missing", param).message).toBe(`No such payment: '${id}'`);
      }
    }
    // Our own, in this environment, pages as before.
    expect((await list(`?limit=2&starting_after=${newestFirst[0]}`)).data.map((p) => p.id)).toEqual(newestFirst.slice(1, 3));
  });

  it("refuses starting_after together with ending_before", async () => {
    const res = await api("GET", `/v1/payments?starting_after=${newestFirst[5]}&ending_before=${newestFirst[1]}`, { key: m.keys.test });
    expectError(res, 400, "invalid_request", "parameter_invalid", "ending_before");
  });
});

describe("GET /v1/payments: filters", () => {
  const HOUR = 3_600_000;
  const base = Date.UTC(2026, 0, 10, 8, 0, 0); // whole seconds, so Unix-second bounds are exact
  type Spec = { reference: string; status: PaymentStatus; currency: "USD" | "ZWG" };
  const specs: Spec[] = [
    { reference: "Order-ABC-001", status: "succeeded", currency: "USD" },
    { reference: "order-abc-002", status: "failed", currency: "ZWG" },
    { reference: "INV_2026_001", status: "succeeded", currency: "USD" },
    { reference: "INV-2026-002", status: "awaiting_customer", currency: "USD" },
    { reference: "50%off-1", status: "unknown", currency: "ZWG" },
    { reference: "50off-2", status: "succeeded", currency: "ZWG" },
    { reference: "a_b", status: "expired", currency: "USD" },
    { reference: "axb", status: "unresolved", currency: "USD" },
    { reference: "back\\slash", status: "succeeded", currency: "USD" },
    { reference: "ORDER-abc-003", status: "succeeded", currency: "USD" },
    { reference: "plain-11", status: "succeeded", currency: "ZWG" },
    { reference: "plain-12", status: "awaiting_customer", currency: "USD" },
  ];
  let m: TestMerchant;
  let all: (Spec & { id: string; at: number })[]; // newest first

  beforeAll(async () => {
    m = await seedTestMerchant();
    const other = await seedTestMerchant();
    const rows = specs.map((s, i) => paymentRow(m.merchant.id, false, new Date(base + i * HOUR), s));
    // Same references and statuses in the live environment and at another merchant: never shown.
    const noise = specs.flatMap((s, i) => [
      paymentRow(m.merchant.id, true, new Date(base + i * HOUR + 1_000), s),
      paymentRow(other.merchant.id, false, new Date(base + i * HOUR + 2_000), s),
    ]);
    await insertRows([...rows, ...noise]);
    all = rows.map((r, i) => ({ ...specs[i]!, id: r.id!, at: base + i * HOUR })).reverse();
  });

  const ids = async (qs: string, key = m.keys.test): Promise<string[]> => {
    const res = await api<ListBody>("GET", `/v1/payments?limit=100&${qs}`, { key });
    expect(res.status, res.text).toBe(200);
    expect(res.body.has_more).toBe(false);
    return res.body.data.map((p) => p.id);
  };
  const expected = (pred: (s: Spec & { at: number }) => boolean) => all.filter(pred).map((s) => s.id);

  it("lists only this merchant's payments in this environment", async () => {
    expect(await ids("")).toEqual(all.map((s) => s.id));
    const live = await ids("", m.keys.live);
    expect(live).toHaveLength(specs.length);
    for (const id of live) expect(all.map((s) => s.id)).not.toContain(id);
  });

  it.each(["succeeded", "failed", "awaiting_customer", "unknown", "expired", "unresolved"] as const)("filters by status=%s", async (status) => {
    const want = expected((s) => s.status === status);
    expect(want.length).toBeGreaterThan(0);
    expect(await ids(`status=${status}`)).toEqual(want);
  });

  it("filters by currency and method", async () => {
    expect(await ids("currency=ZWG")).toEqual(expected((s) => s.currency === "ZWG"));
    expect(await ids("currency=USD")).toEqual(expected((s) => s.currency === "USD"));
    expect(await ids("method=wallet")).toEqual(all.map((s) => s.id));
  });

  it.each([
    ["abc", ["Order-ABC-001", "order-abc-002", "ORDER-abc-003"]],
    ["ORDER-ABC-00", ["Order-ABC-001", "order-abc-002", "ORDER-abc-003"]],
    ["%", ["50%off-1"]],
    ["50%", ["50%off-1"]],
    ["_", ["INV_2026_001", "a_b"]],
    ["a_b", ["a_b"]],
    ["INV_", ["INV_2026_001"]],
    ["\\", ["back\\slash"]],
    ["2026", ["INV_2026_001", "INV-2026-002"]],
    ["nothing-like-this", []],
  ])("search=%j matches references containing it literally, any case", async (search, refs) => {
    const want = expected((s) => refs.includes(s.reference));
    expect(want).toHaveLength(refs.length);
    expect(await ids(`search=${encodeURIComponent(search)}`)).toEqual(want);
  });

  it("filters by created[gte] and created[lt], as RFC 3339 or Unix seconds", async () => {
    const from = base + 3 * HOUR;
    const to = base + 8 * HOUR;
    const want = expected((s) => s.at >= from && s.at < to);
    expect(want).toHaveLength(5);
    const iso = (ms: number) => new Date(ms).toISOString();
    const unix = (ms: number) => String(ms / 1000);
    const offset = (ms: number) => new Date(ms + 2 * HOUR).toISOString().replace(/\.\d+Z$/, "+02:00");
    for (const [gte, lt] of [
      [iso(from), iso(to)],
      [unix(from), unix(to)],
      [offset(from), unix(to)],
    ] as const) {
      expect(await ids(`created[gte]=${encodeURIComponent(gte)}&created[lt]=${encodeURIComponent(lt)}`)).toEqual(want);
    }
    expect(await ids(`created[gte]=${unix(from)}`)).toEqual(expected((s) => s.at >= from));
    expect(await ids(`created[lt]=${iso(from)}`)).toEqual(expected((s) => s.at < from));
    // One millisecond later excludes the payment made exactly at the bound.
    expect(await ids(`created[gte]=${encodeURIComponent(iso(from + 1))}`)).toEqual(expected((s) => s.at > from));
  });

  it("combines filters with each other and with cursors", async () => {
    const want = expected((s) => s.status === "succeeded" && s.currency === "USD");
    expect(want.length).toBeGreaterThanOrEqual(4);
    expect(await ids("status=succeeded&currency=USD")).toEqual(want);
    expect(await ids("status=succeeded&currency=USD&search=order")).toEqual(expected((s) => s.status === "succeeded" && s.currency === "USD" && /order/i.test(s.reference)));

    // Walk the filtered set two at a time, forwards and back.
    const forward: string[] = [];
    let cursor = "";
    for (;;) {
      const res = await api<ListBody>("GET", `/v1/payments?status=succeeded&currency=USD&limit=2${cursor}`, { key: m.keys.test });
      expect(res.status).toBe(200);
      forward.push(...res.body.data.map((p) => p.id));
      if (!res.body.has_more) break;
      cursor = `&starting_after=${res.body.data.at(-1)!.id}`;
    }
    expect(forward).toEqual(want);

    const backward: string[] = [];
    cursor = `&ending_before=${want.at(-1)}`;
    for (;;) {
      const res = await api<ListBody>("GET", `/v1/payments?status=succeeded&currency=USD&limit=2${cursor}`, { key: m.keys.test });
      const page = res.body.data.map((p) => p.id);
      backward.unshift(...page);
      if (!res.body.has_more) break;
      cursor = `&ending_before=${page[0]}`;
    }
    expect(backward).toEqual(want.slice(0, -1));

    // A cursor from outside the filter is just a position.
    const middle = all.find((s) => s.status !== "succeeded")!;
    expect(await ids(`status=succeeded&starting_after=${middle.id}`)).toEqual(expected((s) => s.status === "succeeded" && s.at < middle.at));

    const from = base + 2 * HOUR;
    expect(await ids(`currency=ZWG&created[gte]=${from / 1000}&search=off`)).toEqual(expected((s) => s.currency === "ZWG" && s.at >= from && s.reference.includes("off")));
  });

  it.each([
    ["status=paid", "status"],
    ["method=card", "method"],
    ["currency=usd", "currency"],
    ["search=", "search"],
    ["created[gte]=2026-13-01T00:00:00Z", "created[gte]"],
    ["created[lt]=soon", "created[lt]"],
    ["created[gte]=1800000000&created[lt]=1700000000", "created[lt]"],
    ["created[gte]=2026-11-01T00:00:00Z&created[lt]=2026-11-01T02:00:00%2B02:00", "created[lt]"],
    ["starting_after=re_123", "starting_after"],
  ])("refuses %s", async (qs, param) => {
    const res = await api("GET", `/v1/payments?${qs}`, { key: m.keys.test });
    expectError(res, 400, "invalid_request", "parameter_invalid", param);
  });

  it("says which way round a window goes", async () => {
    const res = await api<{ error: { message: string } }>("GET", "/v1/payments?created[gte]=1800000000&created[lt]=1700000000", { key: m.keys.test });
    expect(res.body.error.message).toBe("created[lt] must be after created[gte].");
  });
});

describe("GET /v1/payments: search among references that share a start", () => {
  // Sixty references that all start `Ord%_2026\` (wildcards and an escape character included):
  // a search that begins with part of that start is narrowed to the rest (distinctivePart), and
  // must still answer exactly the references containing the whole search.
  const references = Array.from({ length: 60 }, (_, i) => `Ord%_2026\\-${1000 + i * 37}${i % 7 === 0 ? "-x" : ""}`);
  const searches = ["ORD%_2026\\-1370", "ord%_2026\\-137", "d%_2026\\-2", "%_2026\\-1259-x", "_2026\\-1", "2026\\-1370", "6\\-1370", "Ord%_2026\\", "1370", "ord%_2025", "ord%_2026\\-9999"];
  let m: TestMerchant;
  let all: { id: string; reference: string }[]; // newest first

  beforeAll(async () => {
    m = await seedTestMerchant();
    const base = Date.UTC(2026, 1, 1);
    const rows = references.map((reference, i) => paymentRow(m.merchant.id, false, new Date(base + i * 1_000), { reference }));
    await insertRows(rows);
    all = rows.map((r) => ({ id: r.id!, reference: r.reference })).reverse();
  });

  it("narrows most of these searches", () => {
    const shared = sharedStart(references.slice(-50));
    expect(shared).toBe("ord%_2026\\-");
    expect(searches.filter((s) => distinctivePart(s, shared) !== undefined)).toEqual(["ORD%_2026\\-1370", "ord%_2026\\-137", "%_2026\\-1259-x", "2026\\-1370", "6\\-1370", "ord%_2026\\-9999"]);
  });

  it.each(searches)(
    "search=%j finds the references containing it, any case",
    async (search) => {
      const want = all.filter((p) => p.reference.toLowerCase().includes(search.toLowerCase())).map((p) => p.id);
      const res = await api<ListBody>("GET", `/v1/payments?limit=100&search=${encodeURIComponent(search)}`, { key: m.keys.test });
      expect(res.status, res.text).toBe(200);
      expect(res.body.data.map((p) => p.id)).toEqual(want);
    },
  );
});
