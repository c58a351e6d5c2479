import { randomInt, randomUUID } from "node:crypto";
import { and, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getDb } from "@/db/client";
import { idempotencyKeys, payments } from "@/db/schema";
import { resetRateLimitersForTests } from "@/server/rate-limit";
import { createPaymentLink } from "@/server/services/payment-links/create-payment-link";
import { createCheckoutSession } from "@/server/services/checkout-sessions/create-checkout-session";
import { payCheckoutSession } from "@/server/services/checkout-sessions/pay-checkout-session";
import { payPaymentLink } from "@/server/services/payment-links/pay-payment-link";
import { transitionPayment } from "@/server/services/payments/transition-payment";
import { api } from "@/server/testing/api";
import { setEnv } from "@/server/testing/env";
import { expectError, serviceRefusal } from "@/server/testing/expect-error";
import { paymentBody, seedTestMerchant, type TestMerchant } from "@/server/testing/fixtures";

/**
 * PIN prompts to one phone number: a few a minute, whichever merchant asks (live mode; the
 * sandbox's test numbers are shared by every integration and reach no phone). Each test uses
 * numbers of its own: with REDIS_URL set the counters are shared by everything on that Redis.
 */
const freshNumber = () => `26377${String(randomInt(1_000_000, 9_999_999))}`;

/** A client address of this test's own (shared counters with REDIS_URL, as for numbers). */
const freshAddress = () => `198.51.${randomInt(0, 256)}.${randomInt(1, 255)}:${randomUUID().slice(0, 8)}`;

const LIMITS = { PIN_PROMPTS_PER_NUMBER_PER_MINUTE: "3", PIN_PROMPTS_PER_NUMBER_PER_HOUR: "5", TEST_PAGE_PAYMENTS_PER_MINUTE: "3", PAGE_PAYMENTS_PER_ADDRESS_PER_MINUTE: "3" };

let a: TestMerchant;
let b: TestMerchant;
let restore: () => void;

const create = (m: TestMerchant, msisdn: string, opts: { live?: boolean; idempotencyKey?: string; body?: Record<string, unknown> } = {}) =>
  api("POST", "/v1/payments", {
    key: opts.live === false ? m.keys.test : m.keys.live,
    body: opts.body ?? paymentBody({ customer: { msisdn } }),
    idempotencyKey: opts.idempotencyKey ?? randomUUID(),
  });

beforeAll(async () => {
  restore = setEnv(LIMITS);
  resetRateLimitersForTests();
  [a, b] = await Promise.all([seedTestMerchant(), seedTestMerchant()]);
});

afterAll(() => {
  restore();
  resetRateLimitersForTests();
});

describe("PIN prompts per phone number", () => {
  it("allows three a minute to one number across merchants; the fourth is 429 with Retry-After, writes nothing, and other numbers and test mode go on", async () => {
    const number = freshNumber();
    const made = [await create(a, number), await create(b, number), await create(a, number)];
    expect(made.map((r) => r.status)).toEqual([201, 201, 201]);

    const refused = await create(b, number);
    expectError(refused, 429, "rate_limited", "rate_limited", "customer.msisdn");
    expect(refused.body.error.message).toMatch(/^Too many payment prompts have been sent to this number\. Wait (a second|\d+ seconds) before trying again\.$/);
    const retryAfter = Number(refused.headers.get("retry-after"));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);

    const db = await getDb();
    const rows = await db.select({ id: payments.id }).from(payments).where(and(eq(payments.customerMsisdn, number), eq(payments.livemode, true)));
    expect(rows).toHaveLength(3);

    expect((await create(b, freshNumber())).status).toBe(201);
    expect((await create(a, number, { live: false })).status).toBe(201);
  });

  it("a refused create is not stored under its Idempotency-Key: the same request is tried afresh, not replayed", async () => {
    const number = freshNumber();
    for (let i = 0; i < 3; i++) expect((await create(a, number)).status).toBe(201);
    const key = randomUUID();
    const first = await create(a, number, { idempotencyKey: key });
    const again = await create(a, number, { idempotencyKey: key });
    for (const r of [first, again]) expectError(r, 429, "rate_limited", "rate_limited", "customer.msisdn");
    expect(again.headers.get("idempotent-replayed")).toBeNull();
    const db = await getDb();
    const stored = await db.select().from(idempotencyKeys).where(and(eq(idempotencyKeys.merchantId, a.merchant.id), eq(idempotencyKeys.key, key)));
    expect(stored).toEqual([]);
  });

  it("replays of a created payment spend none of the number's prompts", async () => {
    const number = freshNumber();
    const key = randomUUID();
    const body = paymentBody({ customer: { msisdn: number } });
    const first = await create(a, number, { idempotencyKey: key, body });
    expect(first.status).toBe(201);
    for (let i = 0; i < 4; i++) {
      const replay = await create(a, number, { idempotencyKey: key, body });
      expect(replay.text).toBe(first.text);
      expect(replay.headers.get("idempotent-replayed")).toBe("true");
    }
    // The first prompt and two more make the minute's three.
    expect((await create(b, number)).status).toBe(201);
    expect((await create(a, number)).status).toBe(201);
    expectError(await create(b, number), 429, "rate_limited", "rate_limited", "customer.msisdn");
    // Spent, the budget still lets the replay through: a stored answer needs no prompt.
    expect((await create(a, number, { idempotencyKey: key, body })).text).toBe(first.text);
  });

  it("the hour's budget holds when the minute's is spread out", async () => {
    restore();
    restore = setEnv({ PIN_PROMPTS_PER_NUMBER_PER_MINUTE: "100", PIN_PROMPTS_PER_NUMBER_PER_HOUR: "5" });
    resetRateLimitersForTests();
    try {
      const number = freshNumber();
      for (let i = 0; i < 5; i++) expect((await create(i % 2 ? a : b, number)).status).toBe(201);
      const refused = await create(a, number);
      expectError(refused, 429, "rate_limited", "rate_limited", "customer.msisdn");
      expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(60);
      expect(refused.body.error.message).toMatch(/ Wait \d+ minutes before trying again\.$/);
    } finally {
      restore();
      restore = setEnv(LIMITS);
      resetRateLimitersForTests();
    }
  });

  it("on a live payment link, a double tap is one prompt; a third attempt in the minute is refused in words the customer can act on", async () => {
    const live = await a.ctx(true);
    const link = await createPaymentLink(live, { amount: 2_000, currency: "USD", description: "Prompt limit" });
    const number = freshNumber();
    const pay = (idempotencyKey: string) => payPaymentLink(live, { linkId: link.id, msisdn: number, idempotencyKey });
    const tap = randomUUID();
    const [first, second] = [await pay(tap), await pay(tap)];
    expect(second.id).toBe(first.id);
    // Two more fit (three a minute): the double tap spent one.
    await pay(randomUUID());
    await pay(randomUUID());
    const refusal = await serviceRefusal(pay(randomUUID()));
    expect(refusal).toMatchObject({ code: "rate_limited", param: "customer.msisdn" });
    expect(refusal.retryAfterSeconds).toBeGreaterThanOrEqual(1);
    expect(refusal.message).toMatch(/^Too many payment prompts have been sent to this number\./);
  });

  it("attempts a live link refuses (a single-use link whose payment is waiting) spend none of the number's prompts", async () => {
    const live = await a.ctx(true);
    const number = freshNumber();
    const once = await createPaymentLink(live, { amount: 2_000, currency: "USD", description: "Once", singleUse: true });
    await payPaymentLink(live, { linkId: once.id, msisdn: number, idempotencyKey: randomUUID() });
    // The link's payment is waiting: each new attempt on it is refused, again and again.
    for (let i = 0; i < 5; i++) {
      const refused = await serviceRefusal(payPaymentLink(live, { linkId: once.id, msisdn: number, idempotencyKey: randomUUID() }));
      expect(refused.code).not.toBe("rate_limited");
    }
    // Two more prompts fit in the minute's three: the refusals spent none.
    const open = await createPaymentLink(live, { amount: 2_000, currency: "USD", description: "Open" });
    await payPaymentLink(live, { linkId: open.id, msisdn: number, idempotencyKey: randomUUID() });
    await payPaymentLink(live, { linkId: open.id, msisdn: number, idempotencyKey: randomUUID() });
    expect(await serviceRefusal(payPaymentLink(live, { linkId: open.id, msisdn: number, idempotencyKey: randomUUID() }))).toMatchObject({ code: "rate_limited" });
  });
});

describe("payments through a test page", () => {
  it("a test link takes a few new payments a minute from every payer together; retries of attempts made still answer, and other links and the API go on", async () => {
    const test = await a.ctx(false);
    const link = await createPaymentLink(test, { amount: 2_000, currency: "USD", description: "Test page limit" });
    const pay = (idempotencyKey: string, msisdn = freshNumber()) => payPaymentLink(test, { linkId: link.id, msisdn, idempotencyKey });
    const first = randomUUID();
    const made = [await pay(first), await pay(randomUUID()), await pay(randomUUID())];

    const refusal = await serviceRefusal(pay(randomUUID()));
    expect(refusal).toMatchObject({ code: "rate_limited", param: undefined });
    expect(refusal.retryAfterSeconds).toBeGreaterThanOrEqual(1);
    expect(refusal.retryAfterSeconds).toBeLessThanOrEqual(60);
    expect(refusal.message).toMatch(/^This test page has taken many payments in the last minute\. Wait (a second|\d+ seconds) before trying again\./);
    const db = await getDb();
    expect(await db.select({ id: payments.id }).from(payments).where(eq(payments.paymentLinkId, link.id))).toHaveLength(3);

    // A tap sent again (its answer lost) is the payment it made, not a new one.
    expect((await pay(first, made[0]!.customerMsisdn)).id).toBe(made[0]!.id);
    // Another link, and the merchant's own test creates, have budgets of their own.
    const other = await createPaymentLink(test, { amount: 2_000, currency: "USD", description: "Another test page" });
    await payPaymentLink(test, { linkId: other.id, msisdn: freshNumber(), idempotencyKey: randomUUID() });
    for (let i = 0; i < 4; i++) expect((await create(a, freshNumber(), { live: false })).status).toBe(201);
  });

  it("attempts a test link refuses (a single-use link whose payment is waiting) spend none of its payments", async () => {
    const test = await a.ctx(false);
    const once = await createPaymentLink(test, { amount: 2_000, currency: "USD", description: "Once", singleUse: true });
    const held = await payPaymentLink(test, { linkId: once.id, msisdn: "263770000003", idempotencyKey: randomUUID() });
    for (let i = 0; i < 5; i++) {
      const refused = await serviceRefusal(payPaymentLink(test, { linkId: once.id, msisdn: freshNumber(), idempotencyKey: randomUUID() }));
      expect(refused.code).toBe("link_used");
    }
    // The waiting payment fails: two more fit in the minute's three, the refusals spent none.
    await transitionPayment(test, { paymentId: held.id, to: "failed", failure: { code: "insufficient_funds", message: "Not enough money." } });
    const second = await payPaymentLink(test, { linkId: once.id, msisdn: "263770000003", idempotencyKey: randomUUID() });
    await transitionPayment(test, { paymentId: second.id, to: "failed", failure: { code: "insufficient_funds", message: "Not enough money." } });
    await payPaymentLink(test, { linkId: once.id, msisdn: "263770000003", idempotencyKey: randomUUID() });
  });
});

describe("payments started on pages from one client address", () => {
  it("a few a minute from one address, across links, sessions, merchants and modes; a double tap is one, other addresses go on", async () => {
    const address = freshAddress();
    const [aLive, bLive, bTest] = [await a.ctx(true), await b.ctx(true), await b.ctx(false)];
    const from = <C extends object>(ctx: C, clientAddress: string | null = address) => ({ ...ctx, clientAddress });
    const linkA = await createPaymentLink(aLive, { amount: 2_000, currency: "USD", description: "Address limit A" });
    const linkB = await createPaymentLink(bTest, { amount: 2_000, currency: "USD", description: "Address limit B" });
    const session = await createCheckoutSession(bLive, { amount: 1_500, currency: "USD", reference: `addr-${randomUUID()}`, successUrl: "https://shop.example/thanks" });

    const tap = randomUUID();
    const first = await payPaymentLink(from(aLive), { linkId: linkA.id, msisdn: freshNumber(), idempotencyKey: tap });
    expect((await payPaymentLink(from(aLive), { linkId: linkA.id, msisdn: first.customerMsisdn, idempotencyKey: tap })).id).toBe(first.id);
    await payPaymentLink(from(bTest), { linkId: linkB.id, msisdn: freshNumber(), idempotencyKey: randomUUID() });
    await payCheckoutSession(from(bLive), { sessionId: session.id, msisdn: freshNumber(), idempotencyKey: randomUUID() });

    const refusal = await serviceRefusal(payPaymentLink(from(aLive), { linkId: linkA.id, msisdn: freshNumber(), idempotencyKey: randomUUID() }));
    expect(refusal).toMatchObject({ code: "rate_limited", param: undefined });
    expect(refusal.retryAfterSeconds).toBeGreaterThanOrEqual(1);
    expect(refusal.retryAfterSeconds).toBeLessThanOrEqual(60);
    expect(refusal.message).toMatch(/^Many payments have been started from your network in the last minute\. Wait (a second|\d+ seconds) before trying again\.$/);
    const db = await getDb();
    expect(await db.select({ id: payments.id }).from(payments).where(eq(payments.paymentLinkId, linkA.id))).toHaveLength(1);

    // Another address, a page whose address is not known, and the API (a key's own limit) go on.
    await payPaymentLink(from(aLive, freshAddress()), { linkId: linkA.id, msisdn: freshNumber(), idempotencyKey: randomUUID() });
    await payPaymentLink(from(aLive, null), { linkId: linkA.id, msisdn: freshNumber(), idempotencyKey: randomUUID() });
    expect((await create(a, freshNumber())).status).toBe(201);
  });

  it("attempts refused for another reason (the number's prompts spent, a single-use link in use) spend none of the address's", async () => {
    const address = freshAddress();
    const live = await a.ctx(true);
    const from = { ...live, clientAddress: address };
    const open = await createPaymentLink(live, { amount: 2_000, currency: "USD", description: "Open" });
    // The number's minute is spent through the API, where no address counts.
    const busy = freshNumber();
    for (let i = 0; i < 3; i++) expect((await create(a, busy)).status).toBe(201);
    for (let i = 0; i < 4; i++) {
      const refused = await serviceRefusal(payPaymentLink(from, { linkId: open.id, msisdn: busy, idempotencyKey: randomUUID() }));
      expect(refused.message).toMatch(/^Too many payment prompts have been sent to this number\./);
    }
    // A single-use link whose payment waits (paid from elsewhere) refuses every other attempt.
    const once = await createPaymentLink(live, { amount: 2_000, currency: "USD", description: "Once", singleUse: true });
    await payPaymentLink(live, { linkId: once.id, msisdn: freshNumber(), idempotencyKey: randomUUID() });
    for (let i = 0; i < 4; i++) expect((await serviceRefusal(payPaymentLink(from, { linkId: once.id, msisdn: freshNumber(), idempotencyKey: randomUUID() }))).code).toBe("link_used");

    // The address's three are all there.
    for (let i = 0; i < 3; i++) await payPaymentLink(from, { linkId: open.id, msisdn: freshNumber(), idempotencyKey: randomUUID() });
    expect((await serviceRefusal(payPaymentLink(from, { linkId: open.id, msisdn: freshNumber(), idempotencyKey: randomUUID() }))).message).toMatch(/^Many payments have been started from your network/);
  });
});
