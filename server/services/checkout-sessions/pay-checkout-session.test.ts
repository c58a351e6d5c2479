import { eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { getDb } from "@/db/client";
import { checkoutSessions, events, payments, type CheckoutSession, type Payment } from "@/db/schema";
import { manualClock, systemClock, type Clock } from "@/server/clock";
import type { ProviderRegistry } from "@/server/providers/port";
import { providers, sandbox } from "@/server/providers/registry";
import { sandboxReference } from "@/server/providers/sandbox/client";
import { toCheckoutSessionResource } from "@/server/schemas/checkout-sessions";
import { api } from "@/server/testing/api";
import { serviceRefusal } from "@/server/testing/expect-error";
import { sandboxAnswering } from "@/server/testing/providers";
import { seedAwaitingPayment, seedTestMerchant, uniqueRef, type TestMerchant } from "@/server/testing/fixtures";
import { driveTestPayment } from "../payments/drive-test-payment";
import { transitionPayment } from "../payments/transition-payment";
import { receiveProviderCallback } from "../providers/receive-callback";
import { createCheckoutSession, type CreateCheckoutSessionInput } from "./create-checkout-session";
import { getCheckoutSession } from "./get-checkout-session";
import { payCheckoutSession } from "./pay-checkout-session";

let m: TestMerchant;
let attempt = 0;
beforeAll(async () => {
  m = await seedTestMerchant();
});

async function newSession(input: Partial<CreateCheckoutSessionInput> = {}): Promise<CheckoutSession> {
  return createCheckoutSession(await m.ctx(), {
    amount: 1_500,
    currency: "USD",
    reference: uniqueRef("order"),
    successUrl: "https://shop.example/thanks",
    ...input,
  });
}

async function pay(session: CheckoutSession, opts: { msisdn?: string; key?: string; clock?: Clock; registry?: ProviderRegistry } = {}): Promise<Payment> {
  attempt += 1;
  return payCheckoutSession(
    { db: await getDb(), clock: opts.clock ?? systemClock, providers: opts.registry ?? providers },
    { sessionId: session.id, msisdn: opts.msisdn ?? "263770000001", idempotencyKey: opts.key ?? `attempt-${attempt}` },
  );
}

const reload = async (session: CheckoutSession) => getCheckoutSession(await m.ctx(), session.id);
const completions = async (session: CheckoutSession) =>
  (await getDb()).select().from(events).where(eq(events.objectId, session.id));

function successCallback(p: Payment) {
  return sandbox.signedCallback({
    event_id: `sbx-success-${p.id}`,
    merchant_tx_id: p.id,
    transaction_ref: sandboxReference(p.id),
    amount: p.chargedAmount,
    currency: p.currency,
    status: "SUCCESS",
  });
}

describe("an attempt on a checkout session", () => {
  it("makes a payment of the session's amount and metadata, numbered after its reference, and the session points at it", async () => {
    const session = await newSession({ amount: 7_700, currency: "ZWG", metadata: { cart: "c-1" } });
    const payment = await pay(session, { msisdn: "077 123 4567" });
    expect(payment).toMatchObject({
      merchantId: m.merchant.id,
      livemode: false,
      amount: 7_700,
      currency: "ZWG",
      reference: `${session.reference}#1`,
      metadata: { cart: "c-1" },
      checkoutSessionId: session.id,
      paymentLinkId: null,
      status: "awaiting_customer",
    });
    expect(sandbox.pushCalls(payment.id)).toBe(1);
    expect(await reload(session)).toMatchObject({ status: "open", attemptCount: 1, paymentId: payment.id });
    const res = await api("GET", `/v1/payments/${payment.id}`, { key: m.keys.test });
    expect(res.body).toMatchObject({ checkout_session: session.id, payment_link: null });
  });

  it("answers a retry of the same attempt with its payment, without counting another", async () => {
    const session = await newSession();
    const first = await pay(session, { key: "same-attempt" });
    const again = await pay(session, { key: "same-attempt" });
    expect(again.id).toBe(first.id);
    expect((await reload(session)).attemptCount).toBe(1);
    expect(sandbox.pushCalls(first.id)).toBe(1);
  });

  it("refuses an invalid number with msisdn_invalid and counts no attempt", async () => {
    const session = await newSession();
    const err = await serviceRefusal(pay(session, { msisdn: "12345" }));
    expect(err).toMatchObject({ code: "msisdn_invalid", param: "customer.msisdn" });
    expect((await reload(session)).attemptCount).toBe(0);
  });

  it.each(["awaiting_customer", "unknown", "unresolved"] as const)("refuses another attempt while one is %s with payment_in_progress", async (status) => {
    const session = await newSession();
    const first = await pay(session);
    const base = { db: await getDb(), clock: systemClock };
    if (status !== "awaiting_customer") await transitionPayment(base, { paymentId: first.id, to: "unknown" });
    if (status === "unresolved") await transitionPayment(base, { paymentId: first.id, to: "unresolved" });
    const err = await serviceRefusal(pay(session));
    expect(err.code).toBe("payment_in_progress");
    expect(await reload(session)).toMatchObject({ attemptCount: 1, paymentId: first.id });
  });

  it("takes a retry after a decline and after an expired attempt, each numbered", async () => {
    const session = await newSession();
    const declined = await pay(session, { msisdn: "263770000002" });
    await driveTestPayment(await m.ctx(), declined.id, "fail");
    // …03: a prompt the customer never answers, so the provider has nothing to confirm late.
    const second = await pay(session, { msisdn: "263770000003" });
    expect(second.reference).toBe(`${session.reference}#2`);
    await driveTestPayment(await m.ctx(), second.id, "expire");
    const third = await pay(session);
    expect(third.reference).toBe(`${session.reference}#3`);
    expect(await reload(session)).toMatchObject({ status: "open", attemptCount: 3, paymentId: third.id });
  });

  it("asks the provider about an attempt that just expired before trying again: paid as it ran out, the session completes and no second attempt is made", async () => {
    const session = await newSession();
    const expired = await pay(session, { msisdn: "263770000003" });
    await driveTestPayment(await m.ctx(), expired.id, "expire");
    // The customer entered the PIN as the prompt ran out: the provider now says paid.
    const asked: string[] = [];
    const late = sandboxAnswering((id) => (asked.push(id), id === expired.id ? { kind: "succeeded" } : undefined));
    const err = await serviceRefusal(pay(session, { registry: late }));
    expect(err.code).toBe("checkout_session_closed");
    expect(asked).toEqual([expired.id]);
    expect(await reload(session)).toMatchObject({ status: "complete", attemptCount: 1, paymentId: expired.id });
    const db = await getDb();
    expect((await db.select().from(payments).where(eq(payments.checkoutSessionId, session.id))).map((p) => p.status)).toEqual(["succeeded"]);
    expect(await completions(session)).toHaveLength(1);
  });

  it("tries again as before when the provider still has nothing for the expired attempt, or cannot be asked", async () => {
    for (const answer of [{ kind: "pending" } as const, "throws" as const]) {
      const session = await newSession();
      const expired = await pay(session, { msisdn: "263770000003" });
      await driveTestPayment(await m.ctx(), expired.id, "expire");
      const next = await pay(session, { registry: sandboxAnswering(() => (answer === "throws" ? Promise.reject(new Error("status API down")) : answer)) });
      expect(next.reference).toBe(`${session.reference}#2`);
      expect(await (await getDb()).select().from(payments).where(eq(payments.id, expired.id))).toMatchObject([{ status: "expired" }]);
    }
  });

  it("steps past an attempt reference the merchant gave a payment or a session itself, rather than failing on it every time", async () => {
    const reference = uniqueRef("order");
    // The merchant's own objects holding what would be attempts #1, #2 and #4.
    for (const n of [1, 2]) {
      const res = await api("POST", "/v1/payments", {
        key: m.keys.test,
        idempotencyKey: `own-${reference}-${n}`,
        body: { amount: 100, currency: "USD", method: "wallet", reference: `${reference}#${n}`, customer: { msisdn: "263770000001" } },
      });
      expect(res.status).toBe(201);
    }
    await newSession({ reference: `${reference}#4` });
    const session = await newSession({ reference });
    const first = await pay(session, { msisdn: "263770000002" });
    expect(first.reference).toBe(`${reference}#3`);
    expect((await reload(session)).attemptCount).toBe(3);
    await driveTestPayment(await m.ctx(), first.id, "fail");
    expect((await pay(session)).reference).toBe(`${reference}#5`);
  });

  it("also after the provider refuses the prompt (sandbox …06)", async () => {
    const session = await newSession();
    const rejected = await pay(session, { msisdn: "263770000006" });
    expect(rejected.status).toBe("failed");
    expect((await pay(session)).reference).toBe(`${session.reference}#2`);
  });

  it("refuses an expired session with checkout_session_closed, and reads it as expired", async () => {
    const session = await newSession({ expiresIn: 60 });
    const late = manualClock(new Date(session.expiresAt.getTime() + 1));
    const err = await serviceRefusal(pay(session, { clock: late }));
    expect(err.code).toBe("checkout_session_closed");
    expect(err.message).toMatch(/expired/);
    expect((await reload(session)).attemptCount).toBe(0);
    expect(toCheckoutSessionResource(session, late.now()).status).toBe("expired");
    expect(toCheckoutSessionResource(session, new Date(session.expiresAt.getTime() - 1)).status).toBe("open");

    // Over the API too, once its expires_at has passed.
    await (await getDb()).update(checkoutSessions).set({ expiresAt: new Date(Date.now() - 1_000) }).where(eq(checkoutSessions.id, session.id));
    expect((await api("GET", `/v1/checkout_sessions/${session.id}`, { key: m.keys.test })).body.status).toBe("expired");
  });
});

describe("completing a checkout session", () => {
  it("completes on the first success, records checkout_session.completed with the session, and takes no more attempts", async () => {
    const session = await newSession({ metadata: { cart: "c-2" } });
    const declined = await pay(session, { msisdn: "263770000002" });
    await driveTestPayment(await m.ctx(), declined.id, "fail");
    const winner = await pay(session);
    const paid = await driveTestPayment(await m.ctx(), winner.id, "succeed");
    expect(paid.status).toBe("succeeded");

    const done = await reload(session);
    expect(done).toMatchObject({ status: "complete", paymentId: winner.id, attemptCount: 2 });
    expect(done.completedAt).toEqual(paid.succeededAt);

    const evts = await completions(session);
    expect(evts).toHaveLength(1);
    expect(evts[0]!.type).toBe("checkout_session.completed");
    expect(evts[0]!.data).toEqual({
      object: toCheckoutSessionResource(done, done.completedAt!),
      previous_attributes: { status: "open" },
    });
    expect((evts[0]!.data as { object: { status: string; payment: string } }).object).toMatchObject({ status: "complete", payment: winner.id });

    const err = await serviceRefusal(pay(session));
    expect(err.code).toBe("checkout_session_closed");
    expect(err.message).toMatch(/already been paid/);

    const res = await api("GET", `/v1/checkout_sessions/${session.id}`, { key: m.keys.test });
    expect(res.body).toMatchObject({ status: "complete", payment: winner.id, completed_at: done.completedAt!.toISOString() });
    // The event is in the merchant's log with its type.
    const log = await api("GET", "/v1/events?type=checkout_session.completed", { key: m.keys.test });
    expect(log.body.data.map((e: { id: string }) => e.id)).toContain(evts[0]!.id);
  });

  it("completes once when the success callback arrives twice, and once more from the test helper", async () => {
    const session = await newSession();
    const payment = await pay(session);
    const deps = { db: await getDb(), clock: systemClock, providers };
    const receipts = [];
    for (let i = 0; i < 2; i++) receipts.push(await receiveProviderCallback(deps, { providerName: "sandbox", ...successCallback(payment) }));
    expect(receipts.map((r) => r.outcome)).toEqual(["applied", "duplicate"]);
    await driveTestPayment(await m.ctx(), payment.id, "succeed");
    expect((await completions(session)).map((e) => e.type)).toEqual(["checkout_session.completed"]);
    expect((await reload(session)).status).toBe("complete");
  });

  it("completes when an attempt made while open succeeds after expires_at", async () => {
    const session = await newSession({ expiresIn: 60 });
    const payment = await pay(session);
    const late = manualClock(new Date(session.expiresAt.getTime() + 5_000));
    await transitionPayment({ db: await getDb(), clock: late }, { paymentId: payment.id, to: "succeeded" });
    const [evt] = await completions(session);
    expect(evt!.data).toMatchObject({ object: { status: "complete" }, previous_attributes: { status: "expired" } });
  });

  it("never takes another: a second attempt's success leaves the session with the first", async () => {
    const session = await newSession();
    const first = await pay(session);
    // An attempt the rules would have refused (as if it were made by hand), succeeding later.
    const stray = await seedAwaitingPayment(m);
    const db = await getDb();
    await db.update(payments).set({ checkoutSessionId: session.id }).where(eq(payments.id, stray.id));
    await driveTestPayment(await m.ctx(), first.id, "succeed");
    await driveTestPayment(await m.ctx(), stray.id, "succeed");
    expect(await reload(session)).toMatchObject({ status: "complete", paymentId: first.id });
    expect(await completions(session)).toHaveLength(1);
  });
});
