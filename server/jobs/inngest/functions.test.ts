import { InngestTestEngine } from "@inngest/test";
import { eq } from "drizzle-orm";
import { afterEach, beforeAll, describe, expect, it, onTestFinished, vi } from "vitest";
import { getDb } from "@/db/client";
import { events, payments, refunds } from "@/db/schema";
import { systemClock } from "@/server/clock";
import { sandbox } from "@/server/providers/registry";
import { seedPayment, seedPendingRefund, seedTestMerchant, type TestMerchant } from "@/server/testing/fixtures";
import { ADVANCE_REFUND_STEPS, advanceRefundFn } from "./advance-refund";
import { expirePaymentFn } from "./expire-payment";
import { flagUnresolvedFn } from "./flag-unresolved";
import { reconcileUnknownFn } from "./reconcile-unknown";
import { sweepOverdueFn } from "./sweep-overdue";
import { deliverWebhookFn, relayEventsFn } from "./deliver-webhook";
import { scheduleDelivery, SEND_CHUNK } from "./client";
import { ENDPOINT_CONCURRENCY } from "@/server/domain/webhooks";
import { webhookAttempts, webhookDeliveries } from "@/db/schema";
import { transitionPayment } from "@/server/services/payments/transition-payment";
import { createEndpoint } from "@/server/services/webhooks/create-endpoint";
import { fanOutEvents } from "@/server/services/webhooks/fan-out-events";
import { startReceiver } from "@/server/testing/webhooks";

const HOUR = 3_600_000;
// Sleeps never run in tests: each is mocked by its step id (an unmocked sleep would hang).
const sleeps = (...ids: string[]) => ids.map((id) => ({ id, handler: () => undefined }));

async function statusOf(id: string) {
  const db = await getDb();
  return (await db.select({ status: payments.status }).from(payments).where(eq(payments.id, id)))[0]?.status;
}

/** A merchant of its own whose endpoint at `url` has the deliveries of one payment.succeeded, fanned out. */
async function succeededPaymentDeliveries(url: string) {
  const db = await getDb();
  const m = await seedTestMerchant();
  const endpoint = await createEndpoint(await m.ctx(), { url, enabledEvents: ["*"] });
  const p = await seedPayment(m, "awaiting_customer");
  await transitionPayment({ db, clock: systemClock }, { paymentId: p.id, to: "succeeded" });
  const { deliveries } = await fanOutEvents({ db, clock: systemClock }, { merchantId: m.merchant.id });
  return { db, endpoint, deliveries };
}

describe("Inngest functions", () => {
  let m: TestMerchant;
  beforeAll(async () => {
    m = await seedTestMerchant();
  });
  afterEach(() => {
    sandbox.clock = systemClock;
  });

  it("expire-payment sleeps until expires_at, then runs the expiry verb", async () => {
    const p = await seedPayment(m, "awaiting_customer", { msisdn: "263770000003", at: new Date(Date.now() - HOUR), expiresInMs: 1_000 });
    const t = new InngestTestEngine({ function: expirePaymentFn });
    const { result, ctx } = await t.execute({
      events: [{ name: "payment/created", data: { payment_id: p.id, expires_at: p.expiresAt.toISOString() } }],
      steps: sleeps("wait-for-expiry"),
    });
    expect(ctx.step.sleepUntil).toHaveBeenCalledWith("wait-for-expiry", p.expiresAt.toISOString());
    expect(result).toEqual({ status: "expired" });
    expect(await statusOf(p.id)).toBe("expired");
    const db = await getDb();
    expect((await db.select().from(events).where(eq(events.objectId, p.id))).map((e) => e.type)).toEqual(["payment.expired"]);
  });

  it("expire-payment woken a moment before expires_at by this server's clock waits the difference, then expires", async () => {
    // The scheduler's clock is ahead of this server's (or it resumed a sleep early): the expiry
    // verb finds the payment not yet due and leaves it. It must not be left to the minute's sweep.
    const p = await seedPayment(m, "awaiting_customer", { msisdn: "263770000003", at: new Date(Date.now() - 179_000), expiresInMs: 180_000 });
    const t = new InngestTestEngine({ function: expirePaymentFn });
    const { result, ctx } = await t.execute({
      events: [{ name: "payment/created", data: { payment_id: p.id, expires_at: p.expiresAt.toISOString() } }],
      steps: [
        { id: "wait-for-expiry", handler: () => undefined },
        // Stands for the second wait: real time passes, so the payment is due when it ends.
        { id: "wait-for-expiry-1", handler: () => new Promise((resolve) => setTimeout(resolve, Math.max(0, p.expiresAt.getTime() - Date.now()) + 50)) },
      ],
    });
    expect(ctx.step.sleep).toHaveBeenCalledWith("wait-for-expiry-1", expect.any(Number));
    const waited = vi.mocked(ctx.step.sleep).mock.calls[0]![1] as number;
    expect(waited).toBeGreaterThan(0);
    expect(waited).toBeLessThanOrEqual(2_000);
    expect(result).toEqual({ status: "expired" });
    expect(await statusOf(p.id)).toBe("expired");
  });

  it("reconcile-unknown asks on the backoff schedule and stops at an outcome", async () => {
    const p = await seedPayment(m, "unknown", { msisdn: "263770000001", at: new Date(Date.now() - HOUR) });
    const t = new InngestTestEngine({ function: reconcileUnknownFn });
    const { result } = await t.execute({
      events: [{ name: "payment/unknown", data: { payment_id: p.id, unknown_since: p.unknownSince!.toISOString() } }],
      steps: sleeps(...Array.from({ length: 8 }, (_, i) => `wait-${i}`)),
    });
    expect(result).toEqual({ status: "succeeded", checks: 1 });
    expect(await statusOf(p.id)).toBe("succeeded");
  });

  it("reconcile-unknown keeps asking while the provider cannot answer", async () => {
    const p = await seedPayment(m, "unknown", { msisdn: "263770000005", at: new Date(Date.now() - HOUR) });
    const t = new InngestTestEngine({ function: reconcileUnknownFn });
    const { result } = await t.execute({
      events: [{ name: "payment/unknown", data: { payment_id: p.id, unknown_since: p.unknownSince!.toISOString() } }],
      steps: sleeps(...Array.from({ length: 8 }, (_, i) => `wait-${i}`)),
    });
    expect(result).toEqual({ status: "still unknown", checks: 8 });
    expect(await statusOf(p.id)).toBe("unknown");
  });

  it("flag-unresolved sleeps 24 h from unknown_since, then flags", async () => {
    const p = await seedPayment(m, "unknown", { msisdn: "263770000005", at: new Date(Date.now() - 25 * HOUR) });
    const t = new InngestTestEngine({ function: flagUnresolvedFn });
    const { result, ctx } = await t.execute({
      events: [{ name: "payment/unknown", data: { payment_id: p.id, unknown_since: p.unknownSince!.toISOString() } }],
      steps: sleeps("wait-24h"),
    });
    expect(ctx.step.sleepUntil).toHaveBeenCalledWith("wait-24h", new Date(p.unknownSince!.getTime() + 24 * HOUR));
    expect(result).toEqual({ status: "unresolved" });
  });

  it("flag-unresolved woken a moment before the 24 h by this server's clock waits the difference, then flags", async () => {
    const p = await seedPayment(m, "unknown", { msisdn: "263770000005", at: new Date(Date.now() - 24 * HOUR + 1_000) });
    const t = new InngestTestEngine({ function: flagUnresolvedFn });
    const { result, ctx } = await t.execute({
      events: [{ name: "payment/unknown", data: { payment_id: p.id, unknown_since: p.unknownSince!.toISOString() } }],
      steps: [
        { id: "wait-24h", handler: () => undefined },
        { id: "wait-24h-1", handler: () => new Promise((resolve) => setTimeout(resolve, Math.max(0, p.unknownSince!.getTime() + 24 * HOUR - Date.now()) + 50)) },
      ],
    });
    expect(ctx.step.sleep).toHaveBeenCalledWith("wait-24h-1", expect.any(Number));
    expect(result).toEqual({ status: "unresolved" });
    const db = await getDb();
    expect((await db.select().from(events).where(eq(events.objectId, p.id))).map((e) => e.type)).toEqual(["payment.unresolved"]);
  });

  it("flag-unresolved asks the provider first: an answer it now has wins over the flag", async () => {
    // …04: the sandbox answers succeeded when asked, so at 24 h the payment is settled, not flagged.
    const p = await seedPayment(m, "unknown", { msisdn: "263770000004", at: new Date(Date.now() - 25 * HOUR) });
    const t = new InngestTestEngine({ function: flagUnresolvedFn });
    const { result } = await t.execute({
      events: [{ name: "payment/unknown", data: { payment_id: p.id, unknown_since: p.unknownSince!.toISOString() } }],
      steps: sleeps("wait-24h"),
    });
    expect(result).toEqual({ status: "succeeded" });
    const db = await getDb();
    expect((await db.select().from(events).where(eq(events.objectId, p.id))).map((e) => e.type)).toEqual(["payment.succeeded"]);
  });

  it("flag-unresolved leaves a payment that moved on alone", async () => {
    const p = await seedPayment(m, "succeeded");
    const t = new InngestTestEngine({ function: flagUnresolvedFn });
    const { result } = await t.execute({
      events: [{ name: "payment/unknown", data: { payment_id: p.id, unknown_since: new Date(Date.now() - 25 * HOUR).toISOString() } }],
      steps: sleeps("wait-24h"),
    });
    expect(result).toEqual({ status: "succeeded" });
  });

  it("sweep-overdue runs both sweeps and reports what they found", async () => {
    // The sweeps themselves are the claims + verbs the local-runner tests exercise; on a database shared
    // with other test files a real sweep would expire their payments, so the steps are mocked.
    const t = new InngestTestEngine({ function: sweepOverdueFn });
    const { result, ctx } = await t.execute({
      steps: [
        { id: "expire-overdue", handler: () => 3 },
        { id: "reconcile-overdue", handler: () => 2 },
        { id: "refunds-overdue", handler: () => 5 },
        { id: "relay-events", handler: () => ["whd_a", "whd_b"] },
        { id: "schedule-deliveries", handler: () => undefined },
        { id: "deliver-overdue", handler: () => 4 },
        { id: "pay-due-test-settlements", handler: () => 1 },
        { id: "carry-on-replays", handler: () => 6 },
        { id: "forget-expired-idempotency-keys", handler: () => 7 },
        { id: "forget-old-payment-days", handler: () => 8 },
      ],
    });
    expect(result).toEqual({ expired: 3, reconciled: 2, refunds: 5, relayed: 2, redelivered: 4, paidOut: 1, replays: 6, forgotten: 7, oldDays: 8 });
    expect(ctx.step.run).toHaveBeenCalledWith("expire-overdue", expect.any(Function));
  });

  it("advance-refund sleeps until each due time, submits, asks, and stops when the refund succeeds", async () => {
    const p = await seedPayment(m, "succeeded", { msisdn: "263770000001", at: new Date(Date.now() - HOUR) });
    // A refund whose request died before submitting it, made long enough ago that the sandbox has settled it.
    const r = await seedPendingRefund(p, { at: new Date(Date.now() - HOUR), amount: 600 });
    const dueAt = r.nextCheckAt!.toISOString();
    const t = new InngestTestEngine({ function: advanceRefundFn });
    const { result, ctx } = await t.execute({
      events: [{ name: "refund/created", data: { refund_id: r.id, due_at: dueAt } }],
      steps: sleeps(...Array.from({ length: ADVANCE_REFUND_STEPS }, (_, i) => `wait-${i}`)),
    });
    expect(result).toEqual({ status: "succeeded", steps: 2 });
    expect(ctx.step.sleepUntil).toHaveBeenCalledWith("wait-0", dueAt);
    // The second wait is the first status check the submission scheduled.
    expect(ctx.step.sleepUntil).toHaveBeenCalledWith("wait-1", expect.stringMatching(/^\d{4}-\d{2}-\d{2}T/));
    expect(sandbox.refundCalls(r.id)).toBe(1);
    const db = await getDb();
    expect((await db.select({ status: refunds.status }).from(refunds).where(eq(refunds.id, r.id)))[0]!.status).toBe("succeeded");
    expect((await db.select().from(events).where(eq(events.objectId, r.id))).map((e) => e.type)).toEqual(["refund.succeeded"]);
    expect((await db.select({ a: payments.amountRefunded }).from(payments).where(eq(payments.id, p.id)))[0]!.a).toBe(600);
  });

  it("advance-refund keeps asking while the provider cannot answer, and gives the rest to the sweeper", async () => {
    const p = await seedPayment(m, "succeeded", { msisdn: "263770000007", at: new Date(Date.now() - HOUR) });
    const r = await seedPendingRefund(p, { at: new Date(Date.now() - HOUR), submitted: true });
    sandbox.faults.refund = "error";
    try {
      const t = new InngestTestEngine({ function: advanceRefundFn });
      const { result } = await t.execute({
        events: [{ name: "refund/created", data: { refund_id: r.id, due_at: r.nextCheckAt!.toISOString() } }],
        steps: sleeps(...Array.from({ length: ADVANCE_REFUND_STEPS }, (_, i) => `wait-${i}`)),
      });
      expect(result).toEqual({ status: "pending", steps: ADVANCE_REFUND_STEPS });
      const db = await getDb();
      const [row] = await db.select().from(refunds).where(eq(refunds.id, r.id));
      expect(row).toMatchObject({ status: "pending", checkAttempts: ADVANCE_REFUND_STEPS });
      expect(row!.nextCheckAt).not.toBeNull();
    } finally {
      sandbox.resetFaults();
    }
  });

  it("sweep-overdue's refund step settles refunds whose function was lost, and leaves recently due ones to theirs", async () => {
    const db = await getDb();
    const p = await seedPayment(m, "succeeded", { msisdn: "263770000007", at: new Date(Date.now() - HOUR) });
    // Long overdue (ordered first, so a busy shared database cannot crowd it out of the claim)…
    const lost = await seedPendingRefund(p, { at: new Date(Date.now() - HOUR), submitted: true, amount: 400, nextCheckAt: new Date("2000-01-01T00:00:00Z") });
    // …and due only a moment ago: its own advance-refund run is about to take it.
    const recent = new Date(Date.now() - 30_000);
    const onTime = await seedPendingRefund(p, { at: new Date(Date.now() - HOUR), submitted: true, amount: 600, nextCheckAt: recent });
    // A refund whose settlement throws (its payment is already fully refunded: the check
    // constraint refuses), claimed first: it must not hold up the others.
    const full = await seedPayment(m, "succeeded", { msisdn: "263770000001", at: new Date(Date.now() - HOUR) });
    await db.update(payments).set({ amountRefunded: full.amount }).where(eq(payments.id, full.id));
    const poisoned = await seedPendingRefund(full, { at: new Date(Date.now() - HOUR), submitted: true, nextCheckAt: new Date("1999-12-31T00:00:00Z") });
    // It would stay pending for ever on a shared database: gone whatever the outcome.
    onTestFinished(async () => void (await db.delete(refunds).where(eq(refunds.id, poisoned.id))));
    const t = new InngestTestEngine({ function: sweepOverdueFn });
    const { result } = await t.execute({
      steps: [
        { id: "expire-overdue", handler: () => 0 },
        { id: "reconcile-overdue", handler: () => 0 },
        { id: "relay-events", handler: () => [] },
        { id: "deliver-overdue", handler: () => 0 },
        { id: "forget-expired-idempotency-keys", handler: () => 0 },
        { id: "forget-old-payment-days", handler: () => 0 },
      ],
    });
    expect((result as { refunds: number }).refunds).toBeGreaterThanOrEqual(1);
    const rows = await db.select().from(refunds).where(eq(refunds.paymentId, p.id));
    const byId = new Map(rows.map((r) => [r.id, r]));
    expect(byId.get(lost.id)).toMatchObject({ status: "failed", failureCode: "refund_declined" });
    expect(byId.get(onTime.id)).toMatchObject({ status: "pending", nextCheckAt: recent });
    expect((await db.select().from(events).where(eq(events.objectId, lost.id))).map((e) => e.type)).toEqual(["refund.failed"]);
    expect((await db.select().from(refunds).where(eq(refunds.id, poisoned.id)))[0]!.status).toBe("pending");
  });

  it("deliver-webhook attempts, sleeps until the schedule's next time, and attempts again until delivered", async () => {
    const r = await startReceiver((_req, n) => (n === 1 ? 503 : 200));
    try {
      const { db, endpoint, deliveries } = await succeededPaymentDeliveries(r.url);
      expect(deliveries).toHaveLength(1);
      const id = deliveries[0]!.id;

      const t = new InngestTestEngine({ function: deliverWebhookFn });
      const { result, ctx: run } = await t.execute({
        events: [{ name: "webhook/delivery.scheduled", data: { delivery_id: id, endpoint_id: endpoint.id } }],
        // The sleep is mocked; what it stands for (a minute passing) is moving the due time to now.
        steps: [{ id: "wait-0", handler: () => db.update(webhookDeliveries).set({ nextAttemptAt: new Date() }).where(eq(webhookDeliveries.id, id)) }],
      });
      expect(result).toEqual({ status: "delivered", next: null });
      expect(run.step.sleepUntil).toHaveBeenCalledWith("wait-0", expect.any(String));
      expect(r.received).toHaveLength(2);
      const attempts = await db.select().from(webhookAttempts).where(eq(webhookAttempts.deliveryId, id));
      expect(attempts.map((a) => a.statusCode).sort()).toEqual([200, 503]);
      expect(endpoint.id).toMatch(/^we_/);
    } finally {
      await r.close();
    }
  });

  it("deliver-webhook woken before the due time by this server's clock waits the difference, then attempts", async () => {
    // The scheduler's clock is ahead of this server's: its sleep until the due time ends while the
    // delivery is not yet due here. A sleep until that time again would end at once, every round.
    const r = await startReceiver(() => 200);
    try {
      const { db, deliveries } = await succeededPaymentDeliveries(r.url);
      const id = deliveries[0]!.id;
      const dueAt = new Date(Date.now() + 1_500);
      await db.update(webhookDeliveries).set({ nextAttemptAt: dueAt }).where(eq(webhookDeliveries.id, id));

      const { result, ctx: run } = await new InngestTestEngine({ function: deliverWebhookFn }).execute({
        events: [{ name: "webhook/delivery.scheduled", data: { delivery_id: id, endpoint_id: deliveries[0]!.endpointId } }],
        // Stands for the measured wait: real time passes, so the delivery is due when it ends.
        steps: [{ id: "wait-0", handler: () => new Promise((resolve) => setTimeout(resolve, Math.max(0, dueAt.getTime() - Date.now()) + 50)) }],
      });
      expect(run.step.sleep).toHaveBeenCalledWith("wait-0", expect.any(Number));
      const waited = vi.mocked(run.step.sleep).mock.calls[0]![1] as number;
      expect(waited).toBeGreaterThan(1_000);
      expect(waited).toBeLessThanOrEqual(2_500);
      expect(run.step.sleepUntil).not.toHaveBeenCalled();
      expect(result).toEqual({ status: "delivered", next: null });
      expect(r.received).toHaveLength(1);
    } finally {
      await r.close();
    }
  });

  it("deliver-webhook: two runs for one delivery at once (a replay brought it forward) post it once", async () => {
    const r = await startReceiver(() => 200);
    try {
      const { db, deliveries } = await succeededPaymentDeliveries(r.url);
      const deliveryIds = deliveries.map((d) => d.id);
      const run = () =>
        new InngestTestEngine({ function: deliverWebhookFn }).execute({
          events: [{ name: "webhook/delivery.scheduled", data: { delivery_id: deliveries[0]!.id, endpoint_id: deliveries[0]!.endpointId } }],
          steps: sleeps(...Array.from({ length: 14 }, (_, i) => `wait-${i}`)),
        });
      await Promise.all([run(), run()]);
      expect(r.received).toHaveLength(1);
      const attempts = await db.select().from(webhookAttempts).where(eq(webhookAttempts.deliveryId, deliveryIds[0]!));
      expect(attempts).toHaveLength(1);
    } finally {
      await r.close();
    }
  });

  it("relay-events fans the outbox out and schedules one deliver-webhook run per delivery", async () => {
    // The fan-out itself is fanOutEvents (tested on the database); on a shared test database a real
    // relay would take other files' outbox rows, so the step is mocked.
    const t = new InngestTestEngine({ function: relayEventsFn });
    const { result, ctx } = await t.execute({
      events: [{ name: "webhook/events.recorded", data: { event_ids: ["evt_x"] } }],
      steps: [
        {
          id: "fan-out",
          handler: () => [
            { id: "whd_1", endpointId: "we_1" },
            { id: "whd_2", endpointId: "we_2" },
          ],
        },
        { id: "schedule-deliveries", handler: () => undefined },
      ],
    });
    expect(result).toEqual({ deliveries: 2 });
    expect(ctx.step.sendEvent).toHaveBeenCalledWith("schedule-deliveries", [
      expect.objectContaining({ name: "webhook/delivery.scheduled", data: { delivery_id: "whd_1", endpoint_id: "we_1" }, id: "whd_1" }),
      expect.objectContaining({ name: "webhook/delivery.scheduled", data: { delivery_id: "whd_2", endpoint_id: "we_2" }, id: "whd_2" }),
    ]);
  });

  it("relay-events sends a fan-out larger than Inngest takes in one request in chunks, every delivery once", async () => {
    const made = Array.from({ length: 2 * SEND_CHUNK + 1 }, (_, i) => ({ id: `whd_${i}`, endpointId: `we_${i % 16}` }));
    const { result, ctx } = await new InngestTestEngine({ function: relayEventsFn }).execute({
      events: [{ name: "webhook/events.recorded", data: { event_ids: ["evt_x"] } }],
      steps: [{ id: "fan-out", handler: () => made }, ...sleeps("schedule-deliveries", "schedule-deliveries-1", "schedule-deliveries-2")],
    });
    expect(result).toEqual({ deliveries: made.length });
    const sends = vi.mocked(ctx.step.sendEvent).mock.calls as unknown as [string, { data: { delivery_id: string } }[]][];
    expect(sends.map(([id, chunk]) => [id, chunk.length])).toEqual([
      ["schedule-deliveries", SEND_CHUNK],
      ["schedule-deliveries-1", SEND_CHUNK],
      ["schedule-deliveries-2", 1],
    ]);
    expect(sends.flatMap(([, chunk]) => chunk.map((e) => e.data.delivery_id))).toEqual(made.map((d) => d.id));
  });

  it("deliver-webhook runs at most ENDPOINT_CONCURRENCY attempts to one endpoint at once, keyed by the event's endpoint", () => {
    // Inngest enforces the limit itself; what this code owns is the key and that every scheduling event carries it.
    expect(deliverWebhookFn.opts.concurrency).toEqual([{ key: "event.data.endpoint_id", limit: ENDPOINT_CONCURRENCY }]);
    expect(scheduleDelivery({ id: "whd_1", endpointId: "we_1" }, "whd_1:5")).toEqual(
      expect.objectContaining({ name: "webhook/delivery.scheduled", data: { delivery_id: "whd_1", endpoint_id: "we_1" }, id: "whd_1:5" }),
    );
  });
});
