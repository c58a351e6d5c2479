import { eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { getDb, watchStatements } from "@/db/client";
import { manualClock, systemClock } from "@/server/clock";
import { linkStatus } from "@/server/domain/payment-links";
import { providers } from "@/server/providers/registry";
import { payments, settlementLines, settlements, type Settlement } from "@/db/schema";
import { newId } from "@/server/domain/ids";
import { createCheckoutSession } from "@/server/services/checkout-sessions/create-checkout-session";
import { payCheckoutSession } from "@/server/services/checkout-sessions/pay-checkout-session";
import { createPaymentLink } from "@/server/services/payment-links/create-payment-link";
import { payPaymentLink } from "@/server/services/payment-links/pay-payment-link";
import { transitionPayment } from "@/server/services/payments/transition-payment";
import { seedPayment, seedSucceededPayment, seedTestMerchant, type TestMerchant } from "@/server/testing/fixtures";
import { STAFF_TEST_PASSWORD, dashboardAs, dashboardSignedOut, refusal } from "../testing";

let a: TestMerchant;
let b: TestMerchant;
beforeAll(async () => {
  a = await seedTestMerchant();
  b = await seedTestMerchant();
});


const RANDOM = { apiKey: newId("apiKey"), link: newId("paymentLink"), settlement: newId("settlement") };

async function seedSettlement(m: TestMerchant, livemode: boolean, status: Settlement["status"] = "pending") {
  const db = await getDb();
  const now = new Date();
  const payment = await seedSucceededPayment(m, { livemode });
  const [s] = await db
    .insert(settlements)
    .values({
      id: newId("settlement", now),
      merchantId: m.merchant.id,
      livemode,
      currency: "USD",
      status,
      amount: 985,
      grossAmount: 1_000,
      feeTotal: 15,
      refundTotal: 0,
      paymentCount: 1,
      refundCount: 0,
      periodStart: now,
      periodEnd: now,
      payAfter: livemode ? null : new Date(now.getTime() + 3_600_000),
      createdAt: now,
      updatedAt: now,
    })
    .returning();
  await db.insert(settlementLines).values({ settlementId: s!.id, objectId: payment.id, kind: "payment", amount: 1_000, fee: 15, net: 985, occurredAt: now });
  return s!;
}

describe("dashboard: overview", () => {
  it("shows every role its own merchant's figures in the chosen environment", async () => {
    const m = await seedTestMerchant();
    await seedSucceededPayment(m, { amount: 1_200 });
    await seedSucceededPayment(m, { amount: 3_000, livemode: true });
    await seedSucceededPayment(b, { amount: 9_000 });
    const unresolved = await seedPayment(m, "unresolved");
    for (const role of ["viewer", "developer", "admin"] as const) {
      const o = await (await dashboardAs(m, role)).overview.get();
      expect(o.today.volume.USD).toBe(1_200);
      expect(o.unresolved.recent.map((p) => p.id)).toEqual([unresolved.id]);
    }
    const live = await (await dashboardAs(m, "viewer", true)).overview.get();
    expect(live.today.volume.USD).toBe(3_000);
    expect(live.unresolved.count).toBe(0);
    expect(await refusal((await dashboardSignedOut()).overview.get())).toBe("UNAUTHORIZED");
  });
});

describe("dashboard: API keys", () => {
  it("lists the environment's keys to a viewer, never hashes, never another merchant's", async () => {
    const viewer = await dashboardAs(a, "viewer");
    const keys = (await viewer.apiKeys.list({})).data;
    expect(keys.length).toBeGreaterThan(0);
    expect(keys.every((k) => !k.livemode && k.display_prefix.startsWith("sk_test_"))).toBe(true);
    expect(JSON.stringify(keys)).not.toMatch(/hash/);
    const theirs = (await (await dashboardAs(b, "viewer")).apiKeys.list({})).data.map((k) => k.id);
    expect(keys.some((k) => theirs.includes(k.id))).toBe(false);
    expect((await (await dashboardAs(a, "viewer", true)).apiKeys.list({})).data.every((k) => k.livemode)).toBe(true);
    expect(await viewer.apiKeys.scopes()).toContain("events:replay");
    expect(await refusal((await dashboardSignedOut()).apiKeys.scopes())).toBe("UNAUTHORIZED");
  });

  it("lets developers create and revoke keys in the current environment; viewers cannot", async () => {
    const dev = await dashboardAs(a, "developer", true);
    const made = await dev.apiKeys.create({ kind: "restricted", scopes: ["payments:read", "links:write"], name: "till", confirmPassword: STAFF_TEST_PASSWORD });
    expect(made.secret).toMatch(/^rk_live_[0-9a-z]{32}$/);
    expect(made.key).toMatchObject({ kind: "restricted", livemode: true, scopes: ["payments:read", "links:write"], revoked_at: null });
    expect(made.key.display_prefix.endsWith(made.secret.slice(-4))).toBe(true);
    expect((await dev.apiKeys.list({})).data.map((k) => k.id)).toContain(made.key.id);
    // The secret is shown once: the list never carries it.
    expect(JSON.stringify(await dev.apiKeys.list({}))).not.toContain(made.secret);

    expect(await refusal(dev.apiKeys.create({ kind: "restricted", scopes: [], confirmPassword: STAFF_TEST_PASSWORD }))).toBe("BAD_REQUEST");
    const full = await (await dashboardAs(a, "admin")).apiKeys.create({ kind: "secret", scopes: ["payments:read"] });
    expect(full.secret).toMatch(/^sk_test_/);
    expect(full.key.scopes).toEqual([]);

    const viewer = await dashboardAs(a, "viewer", true);
    expect(await refusal(viewer.apiKeys.create({ kind: "secret" }))).toBe("FORBIDDEN");
    expect(await refusal(viewer.apiKeys.revoke({ id: made.key.id }))).toBe("FORBIDDEN");

    // The other environment, another merchant and a random id look the same.
    expect(await refusal((await dashboardAs(a, "admin", false)).apiKeys.revoke({ id: made.key.id }))).toBe("NOT_FOUND");
    expect(await refusal((await dashboardAs(b, "admin", true)).apiKeys.revoke({ id: made.key.id }))).toBe("NOT_FOUND");
    expect(await refusal(dev.apiKeys.revoke({ id: RANDOM.apiKey }))).toBe("NOT_FOUND");

    const revoked = await dev.apiKeys.revoke({ id: made.key.id });
    expect(revoked.revoked_at).not.toBeNull();
    expect(await refusal((await dashboardSignedOut()).apiKeys.list({}))).toBe("UNAUTHORIZED");
  });
});

describe("dashboard: payment links", () => {
  it("creates, lists with status and deactivates, by role, merchant and environment", async () => {
    const dev = await dashboardAs(a, "developer");
    const link = await dev.paymentLinks.create({ amount: 2_550, currency: "USD", description: "School fees", singleUse: true });
    expect(link).toMatchObject({ amount: 2_550, single_use: true, status: "active", livemode: false });
    expect(link.url).toContain(`/pay/${link.id}`);

    const viewer = await dashboardAs(a, "viewer");
    expect((await viewer.paymentLinks.list({})).data.map((l) => l.id)).toContain(link.id);
    expect(await refusal(viewer.paymentLinks.create({ amount: 100, currency: "USD", description: "x" }))).toBe("FORBIDDEN");
    expect(await refusal(viewer.paymentLinks.deactivate({ id: link.id }))).toBe("FORBIDDEN");
    expect(await refusal(dev.paymentLinks.create({ amount: 1.5, currency: "USD", description: "x" }))).toBe("BAD_REQUEST");
    expect(await refusal(dev.paymentLinks.create({ amount: 100, currency: "USD", description: "x", expiresAt: "2020-01-01T00:00:00Z" }))).toBe("BAD_REQUEST");
    // Past the year 9999 by its offset: a four-digit year PostgreSQL cannot keep, refused rather than a 500.
    expect(await refusal(dev.paymentLinks.create({ amount: 100, currency: "USD", description: "x", expiresAt: "9999-12-31T23:59:59-05:00" }))).toBe("BAD_REQUEST");
    expect(await dev.paymentLinks.create({ amount: 100, currency: "USD", description: "x", expiresAt: "9999-12-31T23:59:59Z" })).toMatchObject({ expires_at: "9999-12-31T23:59:59.000Z" });

    expect((await (await dashboardAs(a, "viewer", true)).paymentLinks.list({})).data.map((l) => l.id)).not.toContain(link.id);
    expect((await (await dashboardAs(b, "viewer")).paymentLinks.list({})).data.map((l) => l.id)).not.toContain(link.id);
    expect(await refusal((await dashboardAs(a, "admin", true)).paymentLinks.deactivate({ id: link.id }))).toBe("NOT_FOUND");
    expect(await refusal((await dashboardAs(b, "admin")).paymentLinks.deactivate({ id: link.id }))).toBe("NOT_FOUND");
    expect(await refusal(dev.paymentLinks.deactivate({ id: RANDOM.link }))).toBe("NOT_FOUND");

    expect(await dev.paymentLinks.deactivate({ id: link.id })).toMatchObject({ active: false, status: "deactivated" });
    expect(await refusal((await dashboardSignedOut()).paymentLinks.list({}))).toBe("UNAUTHORIZED");
  });

  it("marks a link past its expiry as expired and pages with keyset cursors", async () => {
    const m = await seedTestMerchant();
    const ctx = await m.ctx();
    const soon = await createPaymentLink(ctx, { amount: 100, currency: "USD", description: "soon", expiresAt: new Date(Date.now() + 150) });
    const later = await createPaymentLink(ctx, { amount: 100, currency: "ZWG", description: "later" });
    await new Promise((r) => setTimeout(r, 200));
    const viewer = await dashboardAs(m, "viewer");
    const first = await viewer.paymentLinks.list({ limit: 1 });
    expect(first.hasMore).toBe(true);
    const second = await viewer.paymentLinks.list({ limit: 1, startingAfter: first.data[0]!.id });
    expect(second.hasMore).toBe(false);
    // Newest first by id; two links made within one millisecond may come in either order.
    const pages = [...first.data, ...second.data];
    expect(pages.map((l) => l.id).sort()).toEqual([soon.id, later.id].sort());
    expect(pages.map((l) => l.id)).toEqual([soon.id, later.id].sort().reverse());
    expect(pages.find((l) => l.id === soon.id)).toMatchObject({ status: "expired" });
    expect(pages.find((l) => l.id === later.id)).toMatchObject({ status: "active" });
  });
});

describe("dashboard: payment links, as their payments left them", () => {
  it("shows a single-use link paying while its payment may succeed, used once it has, active again after a failed one", async () => {
    const m = await seedTestMerchant();
    const ctx = await m.ctx();
    const base = { db: await getDb(), clock: systemClock, providers };
    const newLink = (description: string, singleUse = true) => createPaymentLink(ctx, { amount: 1_000, currency: "USD", description, singleUse });
    const pay = (linkId: string, msisdn: string) => payPaymentLink(base, { linkId, msisdn, idempotencyKey: `${linkId}-${msisdn}` });
    const [waiting, paid, declined, reusable] = [await newLink("waiting"), await newLink("paid"), await newLink("declined"), await newLink("reusable", false)];
    await newLink("untouched");
    await pay(waiting.id, "0770000003");
    await transitionPayment(base, { paymentId: (await pay(paid.id, "0770000003")).id, to: "succeeded" });
    const failed = await pay(declined.id, "0770000006");
    expect(failed.status).toBe("failed");
    await transitionPayment(base, { paymentId: (await pay(reusable.id, "0770000003")).id, to: "succeeded" });

    const viewer = await dashboardAs(m, "viewer");
    const statements: string[] = [];
    const page = await watchStatements((sql) => statements.push(sql), () => viewer.paymentLinks.list({}));
    const statusOf = Object.fromEntries(page.data.map((l) => [l.description, l.status]));
    expect(statusOf).toEqual({ waiting: "paying", paid: "used", declined: "active", reusable: "active", untouched: "active" });
    // One statement for the page's holders, however many links it shows: no query per link.
    expect(statements.filter((sql) => /from "payments"/i.test(sql))).toHaveLength(1);
  });

  it("puts the merchant's switch first and a used link's payment before its expiry", () => {
    const now = new Date("2026-11-29T10:00:00Z");
    const link = { active: true, singleUse: true, expiresAt: new Date("2026-11-29T09:00:00Z") };
    expect(linkStatus(link, "succeeded", now)).toBe("used");
    expect(linkStatus(link, "awaiting_customer", now)).toBe("expired");
    expect(linkStatus({ ...link, active: false }, "succeeded", now)).toBe("deactivated");
    expect(linkStatus({ ...link, expiresAt: null }, "unknown", now)).toBe("paying");
    // A day without an outcome waits on staff, expired link or not.
    expect(linkStatus(link, "unresolved", now)).toBe("unresolved");
    expect(linkStatus({ ...link, singleUse: false }, "unresolved", now)).toBe("expired");
    expect(linkStatus({ ...link, expiresAt: null }, "failed", now)).toBe("active");
    expect(linkStatus({ ...link, singleUse: false, expiresAt: null }, "succeeded", now)).toBe("active");
  });
});

describe("dashboard: settlements", () => {
  it("lists and reads batches and their lines of the merchant and environment only", async () => {
    const test = await seedSettlement(a, false);
    const live = await seedSettlement(a, true);
    const theirs = await seedSettlement(b, true);
    const viewer = await dashboardAs(a, "viewer");
    expect((await viewer.settlements.list({})).data.map((s) => s.id)).toEqual([test.id]);
    expect(await viewer.settlements.get({ id: test.id })).toMatchObject({ id: test.id, awaiting_payout_confirmation: false });
    expect((await viewer.settlements.lines({ id: test.id })).data).toEqual([expect.objectContaining({ type: "payment", net: 985 })]);
    expect(await refusal(viewer.settlements.get({ id: live.id }))).toBe("NOT_FOUND");
    expect(await refusal(viewer.settlements.lines({ id: live.id }))).toBe("NOT_FOUND");

    const liveViewer = await dashboardAs(a, "viewer", true);
    expect((await liveViewer.settlements.list({})).data.map((s) => s.id)).toEqual([live.id]);
    expect(await liveViewer.settlements.get({ id: live.id })).toMatchObject({ awaiting_payout_confirmation: true });
    expect(await refusal(liveViewer.settlements.get({ id: theirs.id }))).toBe("NOT_FOUND");
    expect(await refusal(liveViewer.settlements.lines({ id: theirs.id }))).toBe("NOT_FOUND");
    expect(await refusal(liveViewer.settlements.get({ id: RANDOM.settlement }))).toBe("NOT_FOUND");
    expect(await refusal((await dashboardSignedOut()).settlements.list({}))).toBe("UNAUTHORIZED");
  });

  it("lets only an admin confirm a live payout, of their own merchant", async () => {
    const m = await seedTestMerchant();
    const live = await seedSettlement(m, true);
    const test = await seedSettlement(m, false);
    const theirs = await seedSettlement(b, true);
    expect(await refusal((await dashboardAs(m, "developer", true)).settlements.confirmPayout({ id: live.id }))).toBe("FORBIDDEN");
    expect(await refusal((await dashboardAs(m, "viewer", true)).settlements.confirmPayout({ id: live.id }))).toBe("FORBIDDEN");
    const admin = await dashboardAs(m, "admin", true);
    expect(await refusal(admin.settlements.confirmPayout({ id: theirs.id }))).toBe("NOT_FOUND");
    expect(await refusal(admin.settlements.confirmPayout({ id: test.id }))).toBe("NOT_FOUND");
    // Test batches pay themselves out.
    expect(await refusal((await dashboardAs(m, "admin", false)).settlements.confirmPayout({ id: test.id }))).toBe("BAD_REQUEST");
    expect(await refusal((await dashboardAs(m, "admin", false)).settlements.confirmPayout({ id: live.id }))).toBe("NOT_FOUND");

    const paid = await admin.settlements.confirmPayout({ id: live.id });
    expect(paid).toMatchObject({ status: "paid", awaiting_payout_confirmation: false });
    expect((await admin.settlements.confirmPayout({ id: live.id })).paid_at).toBe(paid.paid_at);
    expect((await (await dashboardAs(b, "viewer", true)).settlements.get({ id: theirs.id })).status).toBe("pending");
  });
});

describe("dashboard: a bounced payout", () => {
  it("lets only an admin record a live payout as failed, with their password and a reason; its payments go into the next batch", async () => {
    const m = await seedTestMerchant();
    const live = await seedSettlement(m, true);
    const db = await getDb();
    const [line] = await db.select().from(settlementLines).where(eq(settlementLines.settlementId, live.id));
    await db.update(payments).set({ settlementId: live.id }).where(eq(payments.id, line!.objectId));
    const theirs = await seedSettlement(b, true);
    const reason = "The bank returned the transfer: account closed.";
    const fail = (caller: Awaited<ReturnType<typeof dashboardAs>>, id: string, extra: { reason?: string; confirmPassword?: string } = {}) =>
      caller.settlements.failPayout({ id, reason, confirmPassword: STAFF_TEST_PASSWORD, ...extra });

    expect(await refusal(fail(await dashboardAs(m, "developer", true), live.id))).toBe("FORBIDDEN");
    const admin = await dashboardAs(m, "admin", true);
    expect(await refusal(fail(admin, live.id, { confirmPassword: "not the password" }))).toBe("BAD_REQUEST");
    expect(await refusal(fail(admin, live.id, { confirmPassword: undefined }))).toBe("BAD_REQUEST");
    expect(await refusal(fail(admin, live.id, { reason: "   " }))).toBe("BAD_REQUEST");
    expect(await refusal(fail(admin, theirs.id))).toBe("NOT_FOUND");
    expect(await refusal(fail(await dashboardAs(m, "admin", false), live.id))).toBe("NOT_FOUND");
    expect((await admin.settlements.get({ id: live.id })).status).toBe("pending");

    const failed = await fail(admin, live.id);
    expect(failed).toMatchObject({ status: "failed", failure_message: reason, awaiting_payout_confirmation: false });
    const [released] = await db.select({ settlementId: payments.settlementId }).from(payments).where(eq(payments.id, line!.objectId));
    expect(released!.settlementId).toBeNull();
    // Neither failed twice nor confirmed afterwards: the batch is history.
    expect(await refusal(fail(admin, live.id))).toBe("BAD_REQUEST");
    expect(await refusal(admin.settlements.confirmPayout({ id: live.id }))).toBe("BAD_REQUEST");
    expect((await (await dashboardAs(b, "viewer", true)).settlements.get({ id: theirs.id })).status).toBe("pending");
  });

  it("records a live payout the bank returned after it was confirmed paid: its paid_at stays, its payments are released", async () => {
    const m = await seedTestMerchant();
    const live = await seedSettlement(m, true);
    const db = await getDb();
    const [line] = await db.select().from(settlementLines).where(eq(settlementLines.settlementId, live.id));
    await db.update(payments).set({ settlementId: live.id }).where(eq(payments.id, line!.objectId));
    const admin = await dashboardAs(m, "admin", true);
    const paid = await admin.settlements.confirmPayout({ id: live.id });
    const returned = await admin.settlements.failPayout({ id: live.id, reason: "Returned: account closed.", confirmPassword: STAFF_TEST_PASSWORD });
    expect(returned).toMatchObject({ status: "failed", paid_at: paid.paid_at, failure_message: "Returned: account closed." });
    expect(returned.failed_at).not.toBeNull();
    const [released] = await db.select({ settlementId: payments.settlementId }).from(payments).where(eq(payments.id, line!.objectId));
    expect(released!.settlementId).toBeNull();
    expect(await refusal(admin.settlements.failPayout({ id: live.id, reason: "again", confirmPassword: STAFF_TEST_PASSWORD }))).toBe("BAD_REQUEST");
  });

  it("is not offered for a test batch, which pays itself", async () => {
    const m = await seedTestMerchant();
    const test = await seedSettlement(m, false);
    const admin = await dashboardAs(m, "admin", false);
    expect(await refusal(admin.settlements.failPayout({ id: test.id, reason: "bounced", confirmPassword: STAFF_TEST_PASSWORD }))).toBe("BAD_REQUEST");
    expect((await admin.settlements.get({ id: test.id })).status).toBe("pending");
  });
});

describe("dashboard: settings", () => {
  it("shows every role the settings and lets only an admin change them, for their own merchant", async () => {
    const m = await seedTestMerchant();
    expect(await (await dashboardAs(m, "viewer")).settings.get()).toMatchObject({ fee_bearer: "merchant", payment_expiry_seconds: 180 });
    for (const role of ["viewer", "developer"] as const) {
      expect(await refusal((await dashboardAs(m, role)).settings.update({ feeBearer: "customer" }))).toBe("FORBIDDEN");
    }
    const admin = await dashboardAs(m, "admin", true);
    expect(await admin.settings.update({ feeBearer: "customer", paymentExpirySeconds: 900 })).toMatchObject({ fee_bearer: "customer", payment_expiry_seconds: 900 });
    expect(await refusal(admin.settings.update({ paymentExpirySeconds: 10 }))).toBe("BAD_REQUEST");
    // One merchant-wide setting, read fresh in either environment; the other merchant is untouched.
    expect(await (await dashboardAs(m, "viewer", false)).settings.get()).toMatchObject({ fee_bearer: "customer", payment_expiry_seconds: 900 });
    expect(await (await dashboardAs(b, "viewer")).settings.get()).toMatchObject({ fee_bearer: "merchant", payment_expiry_seconds: 180 });
    expect(await refusal((await dashboardSignedOut()).settings.get())).toBe("UNAUTHORIZED");
    expect(await refusal((await dashboardSignedOut()).settings.update({ feeBearer: "merchant" }))).toBe("UNAUTHORIZED");
  });
});

describe("dashboard: checkout sessions", () => {
  it("lists the environment's sessions newest first, as the API shows them: open, complete with its payment, expired", async () => {
    const m = await seedTestMerchant();
    const base = { db: await getDb(), clock: systemClock, providers };
    const session = (reference: string, ctx = m.ctx()) =>
      ctx.then((c) => createCheckoutSession(c, { amount: 1_500, currency: "USD", reference, successUrl: "https://shop.example/done" }));
    const past = manualClock(new Date(Date.now() - 2 * 86_400_000));
    const lapsed = await session("order-lapsed", m.ctx(false, past));
    const paid = await session("order-paid");
    const open = await session("order-open");
    await session("order-live", m.ctx(true));
    const payment = await payCheckoutSession(base, { sessionId: paid.id, msisdn: "0771234567", idempotencyKey: "paid-1" });
    await transitionPayment(base, { paymentId: payment.id, to: "succeeded" });

    const viewer = await dashboardAs(m, "viewer");
    const page = await viewer.checkoutSessions.list({});
    expect(page.data.map((s) => [s.reference, s.status, s.payment])).toEqual([
      ["order-open", "open", null],
      ["order-paid", "complete", payment.id],
      ["order-lapsed", "expired", null],
    ]);
    expect(page.data[0]).toMatchObject({ id: open.id, url: expect.stringMatching(new RegExp(`/checkout/${open.id}$`)), amount: 1_500, currency: "USD" });
    // Keyset pages: the next one starts after the last shown.
    const next = await viewer.checkoutSessions.list({ limit: 2 });
    expect(next.hasMore).toBe(true);
    expect((await viewer.checkoutSessions.list({ limit: 2, startingAfter: next.data[1]!.id })).data.map((s) => s.id)).toEqual([lapsed.id]);
  });
});
