import { TRPCError } from "@trpc/server";
import { beforeAll, describe, expect, it } from "vitest";
import { api } from "@/server/testing/api";
import { seedPayment, seedSucceededPayment, seedTestMerchant, type TestMerchant } from "@/server/testing/fixtures";
import { dashboardAs, dashboardSignedOut, refusal } from "../testing";

let a: TestMerchant;
let b: TestMerchant;
beforeAll(async () => {
  a = await seedTestMerchant();
  b = await seedTestMerchant();
});


describe("dashboard: payments", () => {
  it("lists and reads the staff member's own merchant's payments, in the chosen environment", async () => {
    const test = await seedSucceededPayment(a);
    const live = await seedSucceededPayment(a, { livemode: true });
    const viewer = await dashboardAs(a, "viewer");
    expect((await viewer.payments.list({})).data.map((p) => p.id)).toEqual([test.id]);
    expect(await viewer.payments.get({ id: test.id })).toMatchObject({ id: test.id, status: "succeeded" });
    expect(await refusal(viewer.payments.get({ id: live.id }))).toBe("NOT_FOUND");
    const liveViewer = await dashboardAs(a, "viewer", true);
    expect((await liveViewer.payments.list({})).data.map((p) => p.id)).toEqual([live.id]);
  });

  it("searches by part of a reference, by the customer's number in any form, or by a payment id", async () => {
    const m = await seedTestMerchant();
    const first = await seedPayment(m, "succeeded", { msisdn: "263771234567" });
    const second = await seedPayment(m, "failed", { msisdn: "263771234567" });
    const other = await seedPayment(m, "succeeded", { msisdn: "263712345678" });
    const live = await seedPayment(m, "succeeded", { msisdn: "263771234567", livemode: true });
    const viewer = await dashboardAs(m, "viewer");
    const found = async (search: string) => (await viewer.payments.list({ search })).data.map((p) => p.id);
    for (const typed of ["077 123 4567", "+263771234567", "0771234567"]) expect(await found(typed)).toEqual([second.id, first.id]);
    expect(await found("071 234 5678")).toEqual([other.id]);
    expect(await found(first.id)).toEqual([first.id]);
    expect(await found(live.id)).toEqual([]);
    expect(await found(other.reference.slice(-6))).toEqual([other.id]);
    // Another merchant's customer is no one's here.
    const theirs = await seedPayment(b, "succeeded", { msisdn: "263783456789" });
    expect(await found("078 345 6789")).toEqual([]);
    expect(await found(theirs.id)).toEqual([]);
  });

  it("finds a reference made of a phone number's digits, as well as that customer's payments", async () => {
    const m = await seedTestMerchant();
    const byNumber = await seedPayment(m, "succeeded", { msisdn: "263712263229" });
    const byReference = await seedPayment(m, "succeeded", { msisdn: "263771234567", reference: "0712263229" });
    await seedPayment(m, "succeeded", { msisdn: "263771234567", reference: "0712263230" });
    const viewer = await dashboardAs(m, "viewer");
    const found = async (search: string) => (await viewer.payments.list({ search })).data.map((p) => p.id);
    expect(await found("0712263229")).toEqual([byReference.id, byNumber.id]);
    // Either of them, with the other filters still applied to both.
    expect((await viewer.payments.list({ search: "0712263229", status: "failed" })).data).toEqual([]);
    // Typed another way, the number is still that customer's; the reference is only found as typed.
    expect(await found("071 226 3229")).toEqual([byNumber.id]);
  });

  it("never shows another merchant's payment, and nothing to someone signed out", async () => {
    const theirs = await seedSucceededPayment(b);
    const admin = await dashboardAs(a, "admin");
    expect(await refusal(admin.payments.get({ id: theirs.id }))).toBe("NOT_FOUND");
    expect((await admin.payments.list({ search: theirs.reference })).data).toEqual([]);
    expect(await refusal((await dashboardSignedOut()).payments.list({}))).toBe("UNAUTHORIZED");
  });
});

const key = () => `k-${Math.random().toString(36).slice(2)}-${Date.now()}`;

describe("dashboard: payment timeline", () => {
  it("shows a payment's timeline to every role of its merchant, in its environment only", async () => {
    const p = await seedSucceededPayment(a);
    for (const role of ["viewer", "developer", "admin"] as const) {
      const t = await (await dashboardAs(a, role)).payments.timeline({ id: p.id });
      expect(t.payment.id).toBe(p.id);
      expect(t.entries.map((e) => e.kind)).toEqual(["state", "state"]);
    }
    expect(await refusal((await dashboardAs(a, "admin", true)).payments.timeline({ id: p.id }))).toBe("NOT_FOUND");
    expect(await refusal((await dashboardAs(b, "admin")).payments.timeline({ id: p.id }))).toBe("NOT_FOUND");
    expect(await refusal((await dashboardAs(a, "admin")).payments.timeline({ id: "pay_0000000000000000000000000" }))).toBe("NOT_FOUND");
    expect(await refusal((await dashboardSignedOut()).payments.timeline({ id: p.id }))).toBe("UNAUTHORIZED");
  });
});

describe("dashboard: refund", () => {
  it("is for developers and admins; a viewer is refused and nothing is refunded", async () => {
    const p = await seedSucceededPayment(a, { amount: 1_000 });
    expect(await refusal((await dashboardAs(a, "viewer")).payments.refund({ paymentId: p.id, idempotencyKey: key() }))).toBe("FORBIDDEN");
    expect(await refusal((await dashboardSignedOut()).payments.refund({ paymentId: p.id, idempotencyKey: key() }))).toBe("UNAUTHORIZED");
    const viewer = await dashboardAs(a, "viewer");
    expect((await viewer.payments.timeline({ id: p.id })).refundable).toBe(1_000);

    const dev = await dashboardAs(a, "developer");
    const r = await dev.payments.refund({ paymentId: p.id, amount: 300, reason: "requested_by_customer", idempotencyKey: key() });
    expect(r).toMatchObject({ object: "refund", payment: p.id, amount: 300, reason: "requested_by_customer" });
    const admin = await dashboardAs(a, "admin");
    expect(await admin.payments.refund({ paymentId: p.id, idempotencyKey: key() })).toMatchObject({ amount: 700 });
    expect((await viewer.payments.timeline({ id: p.id })).refundable).toBe(0);
  });

  it("a double submit of one form is one refund", async () => {
    const p = await seedSucceededPayment(a, { amount: 1_000 });
    const dev = await dashboardAs(a, "developer");
    const k = key();
    const first = await dev.payments.refund({ paymentId: p.id, amount: 200, idempotencyKey: k });
    const again = await dev.payments.refund({ paymentId: p.id, amount: 200, idempotencyKey: k });
    expect(again.id).toBe(first.id);
    expect((await dev.payments.timeline({ id: p.id })).entries.filter((e) => e.kind === "refund")).toHaveLength(1);
  });

  it("no API request can meet a form's key: an Idempotency-Key that spells it makes its own refund", async () => {
    const p = await seedSucceededPayment(a, { amount: 1_000 });
    const k = key();
    const mine = await (await dashboardAs(a, "developer")).payments.refund({ paymentId: p.id, amount: 200, idempotencyKey: k });
    for (const spelled of [`dashboard:${k}`, `dashboard:refund:${k}`]) {
      const res = await api("POST", "/v1/refunds", { key: a.keys.test, idempotencyKey: spelled, body: { payment: p.id, amount: 200 } });
      expect(res.status).toBe(201);
      expect(res.body.id).not.toBe(mine.id);
    }
    // A space is what keeps them apart; the API takes none.
    const spaced = await api("POST", "/v1/refunds", { key: a.keys.test, idempotencyKey: `dashboard refund ${k}`, body: { payment: p.id, amount: 200 } });
    expect(spaced.status).toBe(400);
    expect(spaced.body.error).toMatchObject({ code: "parameter_invalid", param: "Idempotency-Key" });
  });

  it("refuses too much, with the service's code for the form", async () => {
    const p = await seedSucceededPayment(a, { amount: 1_000 });
    const e = await (await dashboardAs(a, "developer")).payments.refund({ paymentId: p.id, amount: 1_001, idempotencyKey: key() }).catch((err: unknown) => err);
    expect(e).toBeInstanceOf(TRPCError);
    expect((e as TRPCError).code).toBe("BAD_REQUEST");
    expect(((e as TRPCError).cause as { code?: string }).code).toBe("refund_amount_invalid");
  });

  it("cannot refund another merchant's or the other environment's payment", async () => {
    const theirs = await seedSucceededPayment(b);
    const live = await seedSucceededPayment(a, { livemode: true });
    const admin = await dashboardAs(a, "admin");
    expect(await refusal(admin.payments.refund({ paymentId: theirs.id, idempotencyKey: key() }))).toBe("NOT_FOUND");
    expect(await refusal(admin.payments.refund({ paymentId: live.id, idempotencyKey: key() }))).toBe("NOT_FOUND");
    expect((await (await dashboardAs(b, "viewer")).payments.timeline({ id: theirs.id })).refundable).toBe(theirs.amount);
    expect((await (await dashboardAs(a, "viewer", true)).payments.timeline({ id: live.id })).refundable).toBe(live.amount);
  });
});

describe("dashboard: resolve an unresolved payment", () => {
  const input = (paymentId: string) => ({ paymentId, outcome: "failed" as const, reason: "Provider confirmed no debit" });

  it("is for admins only", async () => {
    const p = await seedPayment(a, "unresolved");
    expect(await refusal((await dashboardAs(a, "viewer")).payments.resolve(input(p.id)))).toBe("FORBIDDEN");
    expect(await refusal((await dashboardAs(a, "developer")).payments.resolve(input(p.id)))).toBe("FORBIDDEN");
    expect(await refusal((await dashboardSignedOut()).payments.resolve(input(p.id)))).toBe("UNAUTHORIZED");
    const admin = await dashboardAs(a, "admin");
    expect(await admin.payments.resolve(input(p.id))).toMatchObject({ id: p.id, status: "failed", failure_code: "resolved_as_failed" });
    const states = (await admin.payments.timeline({ id: p.id })).entries.filter((e) => e.kind === "state");
    // Who decided is part of the record: the admin by e-mail, as the team page names them.
    const me = await admin.session.me();
    expect(states.at(-1)).toMatchObject({ from: "unresolved", to: "failed", reason: "Provider confirmed no debit", by: me.email });
  });

  it("needs a reason, and an unresolved payment", async () => {
    const admin = await dashboardAs(a, "admin");
    const p = await seedPayment(a, "unresolved");
    expect(await refusal(admin.payments.resolve({ ...input(p.id), reason: " " }))).toBe("BAD_REQUEST");
    const done = await seedSucceededPayment(a);
    expect(await refusal(admin.payments.resolve(input(done.id)))).toBe("BAD_REQUEST");
  });

  it("cannot touch another merchant's or the other environment's payment", async () => {
    const theirs = await seedPayment(b, "unresolved");
    const live = await seedPayment(a, "unresolved", { livemode: true });
    const admin = await dashboardAs(a, "admin");
    expect(await refusal(admin.payments.resolve(input(theirs.id)))).toBe("NOT_FOUND");
    expect(await refusal(admin.payments.resolve(input(live.id)))).toBe("NOT_FOUND");
    expect((await (await dashboardAs(b, "admin")).payments.get({ id: theirs.id })).status).toBe("unresolved");
    expect((await (await dashboardAs(a, "admin", true)).payments.get({ id: live.id })).status).toBe("unresolved");
  });
});

describe("dashboard: payments list and get, by role", () => {
  it("every role reads; lists hold only the merchant's rows of the chosen environment, with filters", async () => {
    const m = await seedTestMerchant();
    const mine = await seedPayment(m, "unknown");
    const done = await seedSucceededPayment(m);
    await seedSucceededPayment(m, { livemode: true });
    await seedPayment(b, "unknown");
    for (const role of ["viewer", "developer", "admin"] as const) {
      const caller = await dashboardAs(m, role);
      expect((await caller.payments.list({})).data.map((p) => p.id)).toEqual([done.id, mine.id]);
      expect((await caller.payments.list({ status: "unknown" })).data.map((p) => p.id)).toEqual([mine.id]);
      expect((await caller.payments.list({ search: mine.reference.slice(2, 12) })).data.map((p) => p.id)).toEqual([mine.id]);
      expect((await caller.payments.get({ id: done.id })).id).toBe(done.id);
    }
    const page = await (await dashboardAs(m, "viewer")).payments.list({ limit: 1 });
    expect(page).toMatchObject({ hasMore: true, data: [{ id: done.id }] });
    const next = await (await dashboardAs(m, "viewer")).payments.list({ limit: 1, startingAfter: done.id });
    expect(next).toMatchObject({ hasMore: false, data: [{ id: mine.id }] });
    expect(await refusal((await dashboardSignedOut()).payments.get({ id: done.id }))).toBe("UNAUTHORIZED");
  });
});
