import { readFileSync } from "node:fs";
import { eq, sql } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { getDb } from "@/db/client";
import { payments, type PaymentLink } from "@/db/schema";
import { manualClock, systemClock, type Clock } from "@/server/clock";
import type { PaymentStatus } from "@/server/domain/payment-status";
import { providers, sandbox } from "@/server/providers/registry";
import { api } from "@/server/testing/api";
import { serviceRefusal } from "@/server/testing/expect-error";
import { sandboxAnswering } from "@/server/testing/providers";
import { paymentBody, seedTestMerchant, type TestMerchant } from "@/server/testing/fixtures";
import { madeByAttempt } from "../payments/pay-through-origin";
import { transitionPayment } from "../payments/transition-payment";
import { createPaymentLink, type CreatePaymentLinkInput } from "./create-payment-link";
import { deactivatePaymentLink } from "./deactivate-payment-link";
import { payPaymentLink } from "./pay-payment-link";

let m: TestMerchant;
let attempt = 0;
beforeAll(async () => {
  m = await seedTestMerchant();
});

async function newLink(input: Partial<CreatePaymentLinkInput> = {}, livemode = false): Promise<PaymentLink> {
  return createPaymentLink(await m.ctx(livemode), { amount: 2_500, currency: "USD", description: "Ticket", ...input });
}

async function pay(link: PaymentLink, opts: { msisdn?: string; key?: string; clock?: Clock } = {}) {
  attempt += 1;
  return payPaymentLink(
    { db: await getDb(), clock: opts.clock ?? systemClock, providers },
    { linkId: link.id, msisdn: opts.msisdn ?? "0771234567", idempotencyKey: opts.key ?? `attempt-${attempt}` },
  );
}

/** Moves a payment into `status` through the transition verb, as callbacks and timers do. */
async function moveTo(paymentId: string, status: Exclude<PaymentStatus, "awaiting_customer">) {
  const base = { db: await getDb(), clock: systemClock };
  if (status === "unresolved") await transitionPayment(base, { paymentId, to: "unknown" });
  const failure = status === "failed" ? { code: "declined" as const, message: "Declined." } : undefined;
  const { payment } = await transitionPayment(base, { paymentId, to: status, failure });
  expect(payment.status).toBe(status);
}

describe("paying a payment link", () => {
  it("makes a payment of the link's amount, currency and metadata, traceable to the link, and pushes the prompt", async () => {
    const link = await newLink({ amount: 4_200, currency: "ZWG", metadata: { event: "jazz-night", seat: "B12" } });
    const payment = await pay(link, { msisdn: "077 123 4567" });
    expect(payment).toMatchObject({
      merchantId: m.merchant.id,
      livemode: false,
      amount: 4_200,
      currency: "ZWG",
      method: "wallet",
      customerMsisdn: "263771234567",
      metadata: { event: "jazz-night", seat: "B12" },
      paymentLinkId: link.id,
      checkoutSessionId: null,
      status: "awaiting_customer",
    });
    expect(payment.reference).toMatch(new RegExp(`^${link.id}-[0-9a-z]{8}$`));
    expect(payment.promptSentAt).toBeInstanceOf(Date);
    expect(sandbox.pushCalls(payment.id)).toBe(1);

    // The merchant sees it through the API, with the link named.
    const res = await api("GET", `/v1/payments/${payment.id}`, { key: m.keys.test });
    expect(res.body).toMatchObject({ payment_link: link.id, checkout_session: null, reference: payment.reference, metadata: link.metadata });
  });

  it("acts in the link's environment: a live link makes a live payment", async () => {
    const link = await newLink({}, true);
    const payment = await pay(link);
    expect(payment.livemode).toBe(true);
    expect((await api("GET", `/v1/payments/${payment.id}`, { key: m.keys.test })).status).toBe(404);
    expect((await api("GET", `/v1/payments/${payment.id}`, { key: m.keys.live })).status).toBe(200);
  });

  it("answers a retry with the same key with the same payment, and prompts once", async () => {
    const link = await newLink({ singleUse: true });
    const first = await pay(link, { key: "page-attempt-1" });
    const again = await pay(link, { key: "page-attempt-1" });
    expect(again.id).toBe(first.id);
    expect(sandbox.pushCalls(first.id)).toBe(1);
  });

  it("keeps a page's keys apart from the merchant's own Idempotency-Keys", async () => {
    const direct = await api("POST", "/v1/payments", { key: m.keys.test, body: paymentBody(), idempotencyKey: "shared-key" });
    const link = await newLink();
    const viaLink = await pay(link, { key: "shared-key" });
    expect(viaLink.id).not.toBe(direct.body.id);
    expect(viaLink.paymentLinkId).toBe(link.id);
  });

  it("keeps an attempt's payment out of reach of any Idempotency-Key, even one that spells its link and key", async () => {
    const link = await newLink();
    const viaLink = await pay(link, { key: "spelled-out" });
    for (const idempotencyKey of [`${link.id}:spelled-out`, `${link.id}_spelled-out`]) {
      const direct = await api("POST", "/v1/payments", { key: m.keys.test, body: paymentBody(), idempotencyKey });
      expect(direct.status).toBe(201);
      expect(direct.body.id).not.toBe(viaLink.id);
      expect(direct.headers.get("idempotent-replayed")).toBeNull();
    }
  });

  it("finds an attempt kept in the older form once migration 0024 has moved its key; a payment of the API keeps its own", async () => {
    const db = await getDb();
    const link = await newLink();
    const older = await pay(link, { key: "before-0024" });
    // As attempts were kept before: the link's id, a colon, the attempt's key.
    await db.update(payments).set({ idempotencyKey: `${link.id}:before-0024` }).where(eq(payments.id, older.id));
    const api0 = await api("POST", "/v1/payments", { key: m.keys.test, body: paymentBody(), idempotencyKey: `${link.id}:an-api-key` });
    await db.execute(sql.raw(readFileSync("db/migrations/0024_attempt_keys_apart.sql", "utf8")));
    const [moved] = await db.select().from(payments).where(eq(payments.id, older.id));
    expect(madeByAttempt(moved!, link.id, ["before-0024"])).toBe(true);
    const [kept] = await db.select().from(payments).where(eq(payments.id, api0.body.id as string));
    expect(kept!.idempotencyKey).toBe(`${link.id}:an-api-key`);
    // And a retry of that attempt answers with its payment, prompting no one again.
    expect((await pay(link, { key: "before-0024" })).id).toBe(older.id);
  });

  it("refuses an invalid number with msisdn_invalid, exactly as POST /v1/payments does", async () => {
    const link = await newLink();
    const err = await serviceRefusal(pay(link, { msisdn: "0242 123 456" }));
    const direct = await api("POST", "/v1/payments", { key: m.keys.test, body: paymentBody({ customer: { msisdn: "0242 123 456" } }), idempotencyKey: "landline" });
    expect({ code: err.code, message: err.message, param: err.param }).toEqual({
      code: "msisdn_invalid",
      message: direct.body.error.message,
      param: direct.body.error.param,
    });
  });

  it("answers resource_missing for a link that does not exist", async () => {
    const err = await serviceRefusal(
      payPaymentLink({ db: await getDb(), clock: systemClock, providers }, { linkId: "plink_00000000000000000000000000", msisdn: "0771234567", idempotencyKey: "k" }),
    );
    expect(err.code).toBe("resource_missing");
  });

  it("refuses an expired link and a deactivated one with link_expired, saying which", async () => {
    const expiresAt = new Date(Date.now() + 60_000);
    const expiring = await newLink({ expiresAt });
    const late = manualClock(new Date(expiresAt.getTime() + 1));
    const expired = await serviceRefusal(pay(expiring, { clock: late }));
    expect(expired.code).toBe("link_expired");
    expect(expired.message).toMatch(/expired/);
    // Just before its expiry it still takes payments.
    expect((await pay(expiring, { clock: manualClock(new Date(expiresAt.getTime() - 1)) })).paymentLinkId).toBe(expiring.id);

    const link = await newLink();
    await deactivatePaymentLink(await m.ctx(), link.id);
    const deactivated = await serviceRefusal(pay(link));
    expect(deactivated.code).toBe("link_expired");
    expect(deactivated.message).toMatch(/deactivated/);
    expect(deactivated.message).not.toBe(expired.message);
  });

  it.each(["succeeded", "awaiting_customer", "unknown", "unresolved"] as const)(
    "refuses a single-use link whose payment is %s with link_used",
    async (status) => {
      const link = await newLink({ singleUse: true });
      const first = await pay(link);
      if (status !== "awaiting_customer") await moveTo(first.id, status);
      const err = await serviceRefusal(pay(link));
      expect(err.code).toBe("link_used");
    },
  );

  it.each(["failed", "expired"] as const)("leaves a single-use link usable after a %s attempt", async (status) => {
    const link = await newLink({ singleUse: true });
    // …03: a prompt never answered, which the provider cannot confirm late.
    const first = await pay(link, { msisdn: "263770000003" });
    await moveTo(first.id, status);
    const second = await pay(link);
    expect(second.id).not.toBe(first.id);
    expect(second.status).toBe("awaiting_customer");
    // And that one uses it up.
    expect((await serviceRefusal(pay(link))).code).toBe("link_used");
  });

  it("closes a single-use link again when its expired attempt turns out paid (a late success)", async () => {
    const link = await newLink({ singleUse: true });
    const first = await pay(link);
    await moveTo(first.id, "expired");
    await moveTo(first.id, "succeeded"); // the provider confirms the customer paid after all
    expect((await serviceRefusal(pay(link))).code).toBe("link_used");
  });

  it("asks the provider about a single-use link's attempt that just expired before another: paid as it ran out, the link is used", async () => {
    const link = await newLink({ singleUse: true });
    const first = await pay(link, { msisdn: "263770000003" });
    await moveTo(first.id, "expired");
    const registry = sandboxAnswering((id) => (id === first.id ? { kind: "succeeded" } : undefined));
    const err = await serviceRefusal(payPaymentLink({ db: await getDb(), clock: systemClock, providers: registry }, { linkId: link.id, msisdn: "0771234567", idempotencyKey: "after-expiry" }));
    expect(err.code).toBe("link_used");
    const res = await api("GET", `/v1/payments?limit=10`, { key: m.keys.test });
    const ofLink = (res.body as { data: { payment_link: string | null; status: string }[] }).data.filter((p) => p.payment_link === link.id);
    expect(ofLink.map((p) => p.status)).toEqual(["succeeded"]);
  });

  it("leaves a single-use link usable when the provider refuses the prompt (sandbox …06)", async () => {
    const link = await newLink({ singleUse: true });
    const rejected = await pay(link, { msisdn: "263770000006" });
    expect(rejected).toMatchObject({ status: "failed", failureCode: "push_rejected" });
    expect((await pay(link)).status).toBe("awaiting_customer");
  });

  it("lets a multi-use link take many payments, each with its own reference", async () => {
    const link = await newLink();
    const made = [];
    for (let i = 0; i < 4; i++) made.push(await pay(link));
    const succeeded = made[0]!;
    await moveTo(succeeded.id, "succeeded");
    made.push(await pay(link));
    expect(new Set(made.map((p) => p.id)).size).toBe(5);
    expect(new Set(made.map((p) => p.reference)).size).toBe(5);
    for (const p of made) expect(p.paymentLinkId).toBe(link.id);
  });
});
