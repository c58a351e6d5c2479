import { eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { getDb } from "@/db/client";
import { merchants } from "@/db/schema";
import { manualClock, systemClock, type Clock } from "@/server/clock";
import { quoteFee } from "@/server/domain/fees";
import { takesAnotherAttempt } from "@/server/domain/hosted";
import { providers } from "@/server/providers/registry";
import { serviceRefusal } from "@/server/testing/expect-error";
import { seedTestMerchant, uniqueRef, type TestMerchant } from "@/server/testing/fixtures";
import { createCheckoutSession } from "../checkout-sessions/create-checkout-session";
import { payCheckoutSession } from "../checkout-sessions/pay-checkout-session";
import { createPaymentLink } from "../payment-links/create-payment-link";
import { deactivatePaymentLink } from "../payment-links/deactivate-payment-link";
import { payPaymentLink } from "../payment-links/pay-payment-link";
import { createPayment } from "../payments/create-payment";
import { listPayments, staffPaymentFilters } from "../payments/list-payments";
import { transitionPayment } from "../payments/transition-payment";
import { viewCheckoutPage } from "./view-checkout-page";
import { viewPaymentLinkPage } from "./view-payment-link-page";

let merchantPays: TestMerchant;
let customerPays: TestMerchant;
beforeAll(async () => {
  merchantPays = await seedTestMerchant();
  customerPays = await seedTestMerchant({ feeBearer: "customer" });
});

const base = async (clock: Clock = systemClock) => ({ db: await getDb(), clock, providers });
let n = 0;
const key = () => `attempt-${++n}`;

async function fail(paymentId: string) {
  await transitionPayment(await base(), { paymentId, to: "failed", failure: { code: "insufficient_funds", message: "Not enough money." } });
}

describe("the payment link page", () => {
  it("shows the merchant, the description and the fee preview that creating the payment will charge", async () => {
    const link = await createPaymentLink(await customerPays.ctx(), { amount: 2_500, currency: "USD", description: "Grade 7 fees" });
    const page = await viewPaymentLinkPage(await base(), { linkId: link.id });
    expect(page).toMatchObject({
      kind: "payment_link",
      livemode: false,
      merchant_name: customerPays.merchant.name,
      description: "Grade 7 fees",
      state: "open",
      notice: null,
      attempt: null,
      status_path: `/pay/${link.id}/status`,
    });
    expect(page!.quote).toEqual(quoteFee(customerPays.merchant.feePlan, "customer", 2_500, "USD"));
    expect(page!.quote.charged_amount).toBeGreaterThan(2_500);

    const payment = await payPaymentLink(await base(), { linkId: link.id, msisdn: "0771234567", idempotencyKey: key() });
    expect(payment.chargedAmount).toBe(page!.quote.charged_amount);
  });

  it("follows the customer's attempt, masked, and only one made through this link", async () => {
    const link = await createPaymentLink(await merchantPays.ctx(), { amount: 1_000, currency: "USD", description: "Tickets" });
    const other = await createPaymentLink(await merchantPays.ctx(), { amount: 1_000, currency: "USD", description: "Other" });
    const attemptKey = key();
    const payment = await payPaymentLink(await base(), { linkId: link.id, msisdn: "0771234567", idempotencyKey: attemptKey });

    const page = await viewPaymentLinkPage(await base(), { linkId: link.id, paymentId: payment.id });
    expect(page!.attempt).toMatchObject({
      id: payment.id,
      status: "awaiting_customer",
      phase: "waiting",
      msisdn_masked: "+263 77 *** *567",
      network_name: "EcoCash",
      expires_at: payment.expiresAt.toISOString(),
      failure_message: null,
    });
    expect(JSON.stringify(page)).not.toContain("263771234567");
    expect(page!.status_path).toBe(`/pay/${link.id}/status?payment=${payment.id}`);

    expect((await viewPaymentLinkPage(await base(), { linkId: other.id, paymentId: payment.id }))!.attempt).toBeNull();
    expect((await viewPaymentLinkPage(await base(), { linkId: link.id, paymentId: "pay_nonsense" }))!.attempt).toBeNull();

    // A page whose answer was lost asks by the key it sent; the key finds nothing through another link.
    expect(await viewPaymentLinkPage(await base(), { linkId: link.id, attemptKeys: [attemptKey] })).toMatchObject({ attempt: { id: payment.id, phase: "waiting" }, attempt_key: attemptKey });
    expect((await viewPaymentLinkPage(await base(), { linkId: other.id, attemptKeys: [attemptKey] }))!.attempt).toBeNull();
    expect(await viewPaymentLinkPage(await base(), { linkId: link.id, attemptKeys: [key()] })).toMatchObject({ attempt: null, attempt_key: null });
    // Keys no page could have sent (by hand, in the status address) name no attempt, beside one that does; nor are they taken for one.
    for (const odd of ["\u0000", "a\u0000b", "\ud800", "", "k".repeat(256)]) {
      expect(await viewPaymentLinkPage(await base(), { linkId: link.id, attemptKeys: [odd, attemptKey] })).toMatchObject({ attempt: { id: payment.id }, attempt_key: attemptKey });
      await expect(payPaymentLink(await base(), { linkId: link.id, msisdn: "0771234567", idempotencyKey: odd })).rejects.toMatchObject({ code: "parameter_invalid", param: "idempotency_key" });
    }
    // The reference the customer quotes is its code: short to read out, and the merchant's search finds the payment by it in any case.
    const quoted = page!.attempt!.reference;
    expect(quoted).toMatch(/^[0-9A-Z]{8}$/);
    expect(payment.reference).toBe(`${link.id}-${quoted.toLowerCase()}`);
    for (const search of [quoted, quoted.toLowerCase()]) {
      expect((await listPayments(await merchantPays.ctx(), staffPaymentFilters({ search }), { limit: 10 })).data.map((p) => p.id)).toEqual([payment.id]);
    }
    // The page's own view names no key: only a look-up by key does.
    expect(page!.attempt_key).toBeNull();
    // The merchant's pricing is not the customer's business when the merchant bears the fee.
    expect(page!.quote).toMatchObject({ fee: null, fee_bearer: "merchant", charged_amount: 1_000 });
    expect(page!.attempt).not.toHaveProperty("fee");
  });

  it("never calls an unknown or unresolved attempt failed, and words a decline for the customer", async () => {
    const link = await createPaymentLink(await merchantPays.ctx(), { amount: 1_000, currency: "USD", description: "Tickets" });
    const unknown = await payPaymentLink(await base(), { linkId: link.id, msisdn: "0771234567", idempotencyKey: key() });
    await transitionPayment(await base(), { paymentId: unknown.id, to: "unknown" });
    expect((await viewPaymentLinkPage(await base(), { linkId: link.id, paymentId: unknown.id }))!.attempt).toMatchObject({ phase: "confirming", failure_message: null });
    await transitionPayment(await base(), { paymentId: unknown.id, to: "unresolved" });
    expect((await viewPaymentLinkPage(await base(), { linkId: link.id, paymentId: unknown.id }))!.attempt).toMatchObject({ phase: "confirming", status: "unresolved" });

    const declinedKey = key();
    const declined = await payPaymentLink(await base(), { linkId: link.id, msisdn: "0771234567", idempotencyKey: declinedKey });
    await fail(declined.id);
    expect((await viewPaymentLinkPage(await base(), { linkId: link.id, paymentId: declined.id, ownAttemptKeys: [declinedKey] }))!.attempt).toMatchObject({
      phase: "failed",
      failure_message: "Your wallet does not hold enough money for this payment. You have not been charged: top up and try again.",
    });
  });

  it("shows a finished attempt only to the browser that made it, with the way to pay again on a link that takes many payments", async () => {
    const link = await createPaymentLink(await merchantPays.ctx(), { amount: 1_000, currency: "USD", description: "Class fund" });
    const payerKey = key();
    const paid = await payPaymentLink(await base(), { linkId: link.id, msisdn: "0771234567", idempotencyKey: payerKey });
    // Under way, whoever follows its address sees it: a prompt that is out is never hidden behind a form.
    expect(await viewPaymentLinkPage(await base(), { linkId: link.id, paymentId: paid.id })).toMatchObject({ attempt: { id: paid.id, phase: "waiting" } });
    await transitionPayment(await base(), { paymentId: paid.id, to: "succeeded", providerReference: "SBX-RECEIPT" });

    // The payer's browser (its kept keys): the receipt, and where to pay again.
    const payer = await viewPaymentLinkPage(await base(), { linkId: link.id, paymentId: paid.id, ownAttemptKeys: [key(), payerKey] });
    expect(payer).toMatchObject({ state: "open", attempt: { id: paid.id, phase: "succeeded" }, pay_again_path: `/pay/${link.id}`, status_path: `/pay/${link.id}/status?payment=${paid.id}` });
    // Anyone the address was passed to: the link's own page, and nothing of the payer's.
    for (const ownAttemptKeys of [undefined, [], [key()]]) {
      const other = await viewPaymentLinkPage(await base(), { linkId: link.id, paymentId: paid.id, ownAttemptKeys });
      expect(other).toMatchObject({ state: "open", attempt: null, attempt_key: null, pay_again_path: `/pay/${link.id}`, status_path: `/pay/${link.id}/status` });
      expect(JSON.stringify(other)).not.toMatch(/SBX-RECEIPT|\*567/);
    }
    // A key that made another payment through the link proves nothing about this one.
    const otherKey = key();
    await payPaymentLink(await base(), { linkId: link.id, msisdn: "0712345678", idempotencyKey: otherKey });
    expect((await viewPaymentLinkPage(await base(), { linkId: link.id, paymentId: paid.id, ownAttemptKeys: [otherKey] }))!.attempt).toBeNull();

    // A single-use link's receipt, too, is its payer's, and it offers no other payment. Its address
    // passed on (forwarded, shared in a chat) reads that the link is used, and nothing of the payer's.
    const once = await createPaymentLink(await merchantPays.ctx(), { amount: 1_000, currency: "USD", description: "One seat", singleUse: true });
    const seatKey = key();
    const seat = await payPaymentLink(await base(), { linkId: once.id, msisdn: "0771234567", idempotencyKey: seatKey });
    await transitionPayment(await base(), { paymentId: seat.id, to: "succeeded", providerReference: "SBX-SEAT" });
    expect(await viewPaymentLinkPage(await base(), { linkId: once.id, paymentId: seat.id, ownAttemptKeys: [seatKey] })).toMatchObject({ state: "open", attempt: { id: seat.id, phase: "succeeded" }, pay_again_path: null });
    for (const ownAttemptKeys of [undefined, [], [key()], [payerKey]]) {
      const passedOn = await viewPaymentLinkPage(await base(), { linkId: once.id, paymentId: seat.id, ownAttemptKeys });
      expect(passedOn).toMatchObject({ state: "link_used", link_in_use: false, attempt: null, other_attempt: null, pay_again_path: null, status_path: `/pay/${once.id}/status` });
      expect(JSON.stringify(passedOn)).not.toMatch(/SBX-SEAT|\*567/);
    }
    // Nor does a link that takes no more payments.
    await deactivatePaymentLink(await merchantPays.ctx(), link.id);
    expect(await viewPaymentLinkPage(await base(), { linkId: link.id, paymentId: paid.id, ownAttemptKeys: [payerKey] })).toMatchObject({ state: "link_expired", attempt: { id: paid.id }, pay_again_path: null });
  });

  it("is link_used for others once a single-use link is held (in use while its payment is under way), and usable again after a decline", async () => {
    const link = await createPaymentLink(await merchantPays.ctx(), { amount: 1_000, currency: "USD", description: "Once", singleUse: true });
    const first = await payPaymentLink(await base(), { linkId: link.id, msisdn: "0771234567", idempotencyKey: key() });
    expect(await viewPaymentLinkPage(await base(), { linkId: link.id })).toMatchObject({
      state: "link_used",
      link_in_use: true,
      notice: expect.stringContaining("Someone is paying through this link now"),
    });
    // The customer who holds it still sees their attempt, not the used page.
    expect(await viewPaymentLinkPage(await base(), { linkId: link.id, paymentId: first.id })).toMatchObject({ state: "open", attempt: { id: first.id } });
    await fail(first.id);
    expect(await viewPaymentLinkPage(await base(), { linkId: link.id })).toMatchObject({ state: "open", notice: null });
  });

  it("shows a declined customer that someone else has since used the single-use link, not a form that would be refused", async () => {
    const link = await createPaymentLink(await merchantPays.ctx(), { amount: 1_000, currency: "USD", description: "Once", singleUse: true });
    const declinedKey = key();
    const declined = await payPaymentLink(await base(), { linkId: link.id, msisdn: "0771234567", idempotencyKey: declinedKey });
    await fail(declined.id);
    const ownAttemptKeys = [declinedKey];
    const retry = await viewPaymentLinkPage(await base(), { linkId: link.id, paymentId: declined.id, ownAttemptKeys });
    expect(retry).toMatchObject({ state: "open", notice: null, attempt: { id: declined.id, phase: "failed" } });
    expect(takesAnotherAttempt(retry!.state, retry!.attempt!.phase)).toBe(true);

    const paidKey = key();
    const paid = await payPaymentLink(await base(), { linkId: link.id, msisdn: "0712345678", idempotencyKey: paidKey });
    const held = await viewPaymentLinkPage(await base(), { linkId: link.id, paymentId: declined.id, ownAttemptKeys });
    // In use: the page looks again until that payment ends (the link may take payments again).
    expect(held).toMatchObject({
      state: "link_used",
      link_in_use: true,
      notice: expect.stringContaining("this page then shows its form"),
      attempt: { id: declined.id, phase: "failed" },
    });
    expect(takesAnotherAttempt(held!.state, held!.attempt!.phase)).toBe(false);
    // Once that payment succeeds, the link is used for good.
    await transitionPayment(await base(), { paymentId: paid.id, to: "succeeded" });
    const used = await viewPaymentLinkPage(await base(), { linkId: link.id, paymentId: declined.id, ownAttemptKeys });
    // Said to the customer whose own attempt failed: not "if you paid through it", which they know they did not.
    expect(used).toMatchObject({
      state: "link_used",
      link_in_use: false,
      notice: "This payment link has been used since, and it takes one payment. If you still need to pay, ask the merchant for a new link.",
      attempt: { id: declined.id, phase: "failed" },
    });
    expect(takesAnotherAttempt(used!.state, used!.attempt!.phase)).toBe(false);
    // The one who paid it still sees their own attempt on an open page.
    expect(await viewPaymentLinkPage(await base(), { linkId: link.id, paymentId: paid.id, ownAttemptKeys: [paidKey] })).toMatchObject({ state: "open", attempt: { id: paid.id } });
  });

  it("on a single-use link, warns of a second charge when an expired attempt is confirmed late while a new one's prompt is out", async () => {
    const link = await createPaymentLink(await merchantPays.ctx(), { amount: 1_000, currency: "USD", description: "One seat", singleUse: true });
    const firstKey = key();
    const first = await payPaymentLink(await base(), { linkId: link.id, msisdn: "0770000003", idempotencyKey: firstKey });
    await transitionPayment(await base(), { paymentId: first.id, to: "expired" });
    const second = await payPaymentLink(await base(), { linkId: link.id, msisdn: "0770000003", idempotencyKey: key() });
    expect(await viewPaymentLinkPage(await base(), { linkId: link.id, paymentId: second.id })).toMatchObject({ other_attempt: null });
    await transitionPayment(await base(), { paymentId: first.id, to: "succeeded" });
    expect(await viewPaymentLinkPage(await base(), { linkId: link.id, paymentId: second.id })).toMatchObject({ attempt: { id: second.id }, other_attempt: "paid" });
    expect(await viewPaymentLinkPage(await base(), { linkId: link.id, paymentId: first.id, ownAttemptKeys: [firstKey] })).toMatchObject({ attempt: { id: first.id, phase: "succeeded" }, other_attempt: "in_flight" });
    // A reusable link's payers are many people: nothing to warn of there.
    const reusable = await createPaymentLink(await merchantPays.ctx(), { amount: 1_000, currency: "USD", description: "Donations" });
    const one = await payPaymentLink(await base(), { linkId: reusable.id, msisdn: "0770000003", idempotencyKey: key() });
    const another = await payPaymentLink(await base(), { linkId: reusable.id, msisdn: "0771234567", idempotencyKey: key() });
    await transitionPayment(await base(), { paymentId: another.id, to: "succeeded" });
    expect(await viewPaymentLinkPage(await base(), { linkId: reusable.id, paymentId: one.id })).toMatchObject({ other_attempt: null });
  });

  it("asked by several attempt keys, shows the newest payment one of them made and names its key", async () => {
    const link = await createPaymentLink(await merchantPays.ctx(), { amount: 1_000, currency: "USD", description: "Once", singleUse: true });
    const paidKey = key();
    const paid = await payPaymentLink(await base(), { linkId: link.id, msisdn: "0771234567", idempotencyKey: paidKey });
    // A second tab's attempt, refused because the first holds the link: it made no payment.
    const refusedKey = key();
    expect(await serviceRefusal(payPaymentLink(await base(), { linkId: link.id, msisdn: "0771234567", idempotencyKey: refusedKey }))).toMatchObject({ code: "link_used" });

    // The browser asks with both, newest first: the one that paid answers, and it is named.
    const view = await viewPaymentLinkPage(await base(), { linkId: link.id, attemptKeys: [refusedKey, paidKey] });
    expect(view).toMatchObject({ state: "open", attempt: { id: paid.id }, attempt_key: paidKey, status_path: `/pay/${link.id}/status?payment=${paid.id}` });
    expect(await viewPaymentLinkPage(await base(), { linkId: link.id, attemptKeys: [refusedKey] })).toMatchObject({ state: "link_used", attempt: null, attempt_key: null });

    // On a link that takes many payments, the newer of two payments is the one shown.
    const many = await createPaymentLink(await merchantPays.ctx(), { amount: 1_000, currency: "USD", description: "Many" });
    const [olderKey, newerKey] = [key(), key()];
    await payPaymentLink(await base(), { linkId: many.id, msisdn: "0771234567", idempotencyKey: olderKey });
    const newer = await payPaymentLink(await base(), { linkId: many.id, msisdn: "0771234567", idempotencyKey: newerKey });
    for (const keys of [[olderKey, newerKey], [newerKey, olderKey]]) {
      expect(await viewPaymentLinkPage(await base(), { linkId: many.id, attemptKeys: keys })).toMatchObject({ attempt: { id: newer.id }, attempt_key: newerKey });
    }
  });

  it("is link_expired after its expiry or deactivation, and null for a link that does not exist", async () => {
    const start = new Date();
    const link = await createPaymentLink(await merchantPays.ctx(), { amount: 1_000, currency: "USD", description: "Soon", expiresAt: new Date(start.getTime() + 600_000) });
    expect(await viewPaymentLinkPage(await base(manualClock(new Date(start.getTime() + 601_000))), { linkId: link.id })).toMatchObject({
      state: "link_expired",
      notice: expect.stringContaining("expired"),
    });
    await deactivatePaymentLink(await merchantPays.ctx(), link.id);
    expect(await viewPaymentLinkPage(await base(), { linkId: link.id })).toMatchObject({ state: "link_expired", notice: expect.stringContaining("deactivated") });
    expect(await viewPaymentLinkPage(await base(), { linkId: "plink_00000000000000000000000000" })).toBeNull();
    expect(await viewPaymentLinkPage(await base(), { linkId: "cs_whatever" })).toBeNull();
  });
});

describe("a page asked by the attempt keys its browser kept", () => {
  it("finds only attempts made through it: a payment the merchant made with a key of that shape is none of its", async () => {
    const s = await createCheckoutSession(await merchantPays.ctx(), { amount: 1_500, currency: "USD", reference: uniqueRef("order"), successUrl: "https://shop.example/done" });
    const borrowed = key();
    // Through the API, whose Idempotency-Key is the merchant's to choose: the shape a page's attempt has.
    await createPayment(await merchantPays.ctx(), { amount: 900, currency: "USD", method: "wallet", reference: uniqueRef("api"), msisdn: "0771234567", idempotencyKey: `${s.id}:${borrowed}` });
    expect(await viewCheckoutPage(await base(), s.id, [borrowed])).toMatchObject({ attempt: null, attempt_key: null });
    const own = key();
    const paid = await payCheckoutSession(await base(), { sessionId: s.id, msisdn: "0771234567", idempotencyKey: own });
    expect(await viewCheckoutPage(await base(), s.id, [borrowed, own])).toMatchObject({ attempt: { id: paid.id }, attempt_key: own });
  });
});

describe("a page's headline amount after the merchant changes who bears the fee", () => {
  it("is what the attempt charged while the page is about it, and the next attempt's charge once the form is back", async () => {
    const m = await seedTestMerchant({ feeBearer: "customer" });
    const link = await createPaymentLink(await m.ctx(), { amount: 2_500, currency: "USD", description: "Jazz night" });
    const s = await createCheckoutSession(await m.ctx(), { amount: 1_500, currency: "USD", reference: uniqueRef("order"), successUrl: "https://shop.example/done" });
    const onLink = await payPaymentLink(await base(), { linkId: link.id, msisdn: "0771234567", idempotencyKey: key() });
    const onSession = await payCheckoutSession(await base(), { sessionId: s.id, msisdn: "0771234567", idempotencyKey: key() });
    expect(onLink.chargedAmount).toBeGreaterThan(2_500);
    await (await getDb()).update(merchants).set({ feeBearer: "merchant" }).where(eq(merchants.id, m.merchant.id));

    const charged = (p: typeof onLink) => ({ amount: p.amount, fee: p.fee, fee_bearer: "customer", charged_amount: p.chargedAmount });
    const linkPage = await viewPaymentLinkPage(await base(), { linkId: link.id, paymentId: onLink.id });
    expect(linkPage!.quote).toMatchObject(charged(onLink));
    expect(linkPage!.attempt!.charged_amount).toBe(linkPage!.quote.charged_amount);
    const sessionPage = await viewCheckoutPage(await base(), s.id);
    expect(sessionPage!.quote).toMatchObject(charged(onSession));
    // A link page without this customer's attempt quotes the next charge.
    expect((await viewPaymentLinkPage(await base(), { linkId: link.id }))!.quote).toMatchObject({ fee: null, fee_bearer: "merchant", charged_amount: 2_500 });

    // Declined: the form is back, and so is the amount the next attempt will charge.
    await fail(onLink.id);
    await fail(onSession.id);
    expect((await viewPaymentLinkPage(await base(), { linkId: link.id, paymentId: onLink.id }))!.quote).toMatchObject({ fee: null, charged_amount: 2_500 });
    expect((await viewCheckoutPage(await base(), s.id))!.quote).toMatchObject({ fee: null, charged_amount: 1_500 });
    const next = await payCheckoutSession(await base(), { sessionId: s.id, msisdn: "0771234567", idempotencyKey: key() });
    expect(next.chargedAmount).toBe(1_500);
  });
});

describe("an attempt whose page showed another charge", () => {
  it("is refused before any prompt when who bears the fee changed since the page was shown; a retry of one already made is still its payment", async () => {
    const m = await seedTestMerchant({ feeBearer: "customer" });
    const link = await createPaymentLink(await m.ctx(), { amount: 2_500, currency: "USD", description: "Shown then changed" });
    const shown = (await viewPaymentLinkPage(await base(), { linkId: link.id }))!.quote.charged_amount;
    const made = key();
    const first = await payPaymentLink(await base(), { linkId: link.id, msisdn: "0770000002", idempotencyKey: made, quotedChargedAmount: shown });
    expect(first.chargedAmount).toBe(shown);
    await (await getDb()).update(merchants).set({ feeBearer: "merchant" }).where(eq(merchants.id, m.merchant.id));

    // The same attempt sent again (a dropped answer): its payment, not a refusal.
    expect((await payPaymentLink(await base(), { linkId: link.id, msisdn: "0770000002", idempotencyKey: made, quotedChargedAmount: shown })).id).toBe(first.id);
    // A new attempt from a page still showing the old charge: refused, naming the new one, and nothing made.
    const err = await serviceRefusal(payPaymentLink(await base(), { linkId: link.id, msisdn: "0771234567", idempotencyKey: key(), quotedChargedAmount: shown }));
    expect(err).toMatchObject({ code: "parameter_invalid", param: "charged_amount", message: "The amount to pay has changed to USD 25.00 since this page was opened." });
    const again = (await viewPaymentLinkPage(await base(), { linkId: link.id }))!.quote.charged_amount;
    expect(again).toBe(2_500);
    expect((await payPaymentLink(await base(), { linkId: link.id, msisdn: "0771234567", idempotencyKey: key(), quotedChargedAmount: again })).chargedAmount).toBe(2_500);
  });
});

describe("the checkout page", () => {
  async function session(m: TestMerchant, expiresIn = 3_600) {
    return createCheckoutSession(await m.ctx(), { amount: 1_500, currency: "USD", reference: uniqueRef("order"), successUrl: "https://shop.example/done?cs={CHECKOUT_SESSION_ID}", expiresIn });
  }

  it("shows the order, its latest attempt, and completes with the succeeded one", async () => {
    const s = await session(customerPays);
    expect(await viewCheckoutPage(await base(), s.id)).toMatchObject({
      kind: "checkout_session",
      // "order-…" heads the page as it is, not as "Order order-…" (orderTitle).
      description: s.reference,
      state: "open",
      attempt: null,
      // Where a paid checkout goes is told once it is paid: the page is no shortcut to it.
      success_url: null,
      status_path: `/checkout/${s.id}/status`,
    });
    const firstKey = key();
    const first = await payCheckoutSession(await base(), { sessionId: s.id, msisdn: "0781234567", idempotencyKey: firstKey });
    await fail(first.id);
    // A checkout's attempt is quoted by the order's own reference.
    expect(await viewCheckoutPage(await base(), s.id)).toMatchObject({
      state: "open",
      attempt: { id: first.id, phase: "failed", network_name: "EcoCash", reference: `${s.reference}#1` },
      success_url: null,
    });

    const secondKey = key();
    const second = await payCheckoutSession(await base(), { sessionId: s.id, msisdn: "0711234567", idempotencyKey: secondKey });
    await transitionPayment(await base(), { paymentId: second.id, to: "succeeded", providerReference: "SBX-1" });
    const paid = await viewCheckoutPage(await base(), s.id);
    expect(paid).toMatchObject({
      state: "complete",
      notice: "This checkout has been paid.",
      attempt: { id: second.id, phase: "succeeded", network_name: "OneMoney", provider_reference: "SBX-1" },
      success_url: "https://shop.example/done?cs={CHECKOUT_SESSION_ID}",
    });
    expect(paid!.attempt!.succeeded_at).not.toBeNull();

    // A page whose answer was lost asks by the key it sent: that attempt, or none.
    expect(await viewCheckoutPage(await base(), s.id, [firstKey])).toMatchObject({ attempt: { id: first.id, phase: "failed" }, attempt_key: firstKey });
    expect(await viewCheckoutPage(await base(), s.id, [key(), secondKey, firstKey])).toMatchObject({ attempt: { id: second.id }, attempt_key: secondKey });
    expect(await viewCheckoutPage(await base(), s.id, [key()])).toMatchObject({ attempt: null, attempt_key: null });
    expect(paid!.attempt_key).toBeNull();
  });

  it("warns of a second charge when an expired attempt is confirmed late while a new one's prompt is out, on either attempt's page", async () => {
    const s = await session(merchantPays);
    const firstKey = key();
    const first = await payCheckoutSession(await base(), { sessionId: s.id, msisdn: "0770000003", idempotencyKey: firstKey });
    await transitionPayment(await base(), { paymentId: first.id, to: "expired" });
    const secondKey = key();
    const second = await payCheckoutSession(await base(), { sessionId: s.id, msisdn: "0770000003", idempotencyKey: secondKey });
    expect(await viewCheckoutPage(await base(), s.id)).toMatchObject({ attempt: { id: second.id, phase: "waiting" }, other_attempt: null });

    // The first is confirmed late, after the second was made.
    await transitionPayment(await base(), { paymentId: first.id, to: "succeeded" });
    expect(await viewCheckoutPage(await base(), s.id, [secondKey])).toMatchObject({ attempt: { id: second.id, phase: "waiting" }, other_attempt: "paid" });
    const paid = await viewCheckoutPage(await base(), s.id, [firstKey]);
    expect(paid).toMatchObject({ state: "complete", attempt: { id: first.id, phase: "succeeded" }, other_attempt: "in_flight" });

    // Once the second prompt is gone, the receipt is a receipt again.
    await transitionPayment(await base(), { paymentId: second.id, to: "expired" });
    expect(await viewCheckoutPage(await base(), s.id, [firstKey])).toMatchObject({ attempt: { id: first.id }, other_attempt: null });
  });

  it("offers the way back to the merchant: the cancel_url, or without one the home page of the success_url's site", async () => {
    const s = await session(merchantPays);
    expect((await viewCheckoutPage(await base(), s.id))!.cancel_url).toBe("https://shop.example/");
    const withCancel = await createCheckoutSession(await merchantPays.ctx(), {
      amount: 1_500,
      currency: "USD",
      reference: uniqueRef("order"),
      successUrl: "https://shop.example/done",
      cancelUrl: "https://shop.example/cart",
    });
    expect((await viewCheckoutPage(await base(), withCancel.id))!.cancel_url).toBe("https://shop.example/cart");
  });

  it("reads expired after expires_at, by the clock it is given", async () => {
    const s = await session(merchantPays, 60);
    const later = manualClock(new Date(s.expiresAt.getTime() + 1));
    expect(await viewCheckoutPage(await base(later), s.id)).toMatchObject({ state: "expired", notice: expect.stringContaining("expired"), server_time: later.now().toISOString() });
    expect(await viewCheckoutPage(await base(), "cs_00000000000000000000000000")).toBeNull();
  });
});
