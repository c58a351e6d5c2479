import { eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { getDb } from "@/db/client";
import { payments, webhookAttempts, type Payment } from "@/db/schema";
import { manualClock } from "@/server/clock";
import { isServiceError } from "@/server/domain/errors";
import { newId } from "@/server/domain/ids";
import { seedPayment, seedPendingRefund, seedSucceededPayment, seedTestMerchant, type TestMerchant } from "@/server/testing/fixtures";
import { listDeliveries } from "../webhooks/list-deliveries";
import { listEvents } from "../events/list-events";
import { createRefund } from "../refunds/create-refund";
import { transitionRefund } from "../refunds/transition-refund";
import { createEndpoint } from "../webhooks/create-endpoint";
import { fanOutEvents } from "../webhooks/fan-out-events";
import { paymentTimeline, TIMELINE_LIMIT, type TimelineEntry } from "./payment-timeline";
import { resolveUnresolvedPayment } from "./resolve-unresolved-payment";
import { transitionPayment } from "./transition-payment";

const clock = manualClock("2026-03-01T08:00:00Z");
const MIN = 60_000;

/**
 * A payment with a full life: it waits, goes unknown, unresolved, is resolved as succeeded by
 * staff, its events go to an endpoint (the first delivery's two attempts fail), and part of it is
 * refunded.
 */
async function livedPayment(m: TestMerchant, livemode = false): Promise<Payment> {
  const db = await getDb();
  const ctx = await m.ctx(livemode, clock);
  const endpoint = await createEndpoint(ctx, { url: `${livemode ? "https" : "http"}://127.0.0.1:9/hooks`, enabledEvents: ["*"] });
  const p = await seedPayment(m, "awaiting_customer", { at: clock.now(), livemode, amount: 1_000 });
  clock.advance(MIN);
  await transitionPayment(ctx, { paymentId: p.id, to: "unknown" });
  clock.advance(24 * 60 * MIN);
  await transitionPayment(ctx, { paymentId: p.id, to: "unresolved" });
  clock.advance(MIN);
  const deliveryIds = (await fanOutEvents(ctx, { merchantId: m.merchant.id })).deliveries.map((d) => d.id);
  const at = clock.now();
  await db.insert(webhookAttempts).values([
    { id: newId("webhookAttempt", at), deliveryId: deliveryIds[0]!, endpointId: endpoint.id, attemptedAt: at, statusCode: 500, latencyMs: 120, error: null, responseBody: "nope" },
    { id: newId("webhookAttempt", new Date(at.getTime() + 1)), deliveryId: deliveryIds[0]!, endpointId: endpoint.id, attemptedAt: new Date(at.getTime() + MIN), statusCode: null, latencyMs: 10_000, error: "timed out", responseBody: "" },
  ]);
  clock.advance(30 * MIN);
  await resolveUnresolvedPayment(ctx, { paymentId: p.id, outcome: "succeeded", reason: "Provider statement shows it paid" });
  clock.advance(MIN);
  await fanOutEvents(ctx, { merchantId: m.merchant.id });
  clock.advance(MIN);
  const refund = await seedPendingRefund({ ...p, livemode }, { at: clock.now(), amount: 400 });
  clock.advance(MIN);
  await transitionRefund(ctx, { refundId: refund.id, to: "succeeded" });
  clock.advance(MIN);
  await seedPendingRefund({ ...p, livemode }, { at: clock.now(), amount: 100 });
  clock.advance(MIN);
  await fanOutEvents(ctx, { merchantId: m.merchant.id });
  clock.advance(MIN);
  return p;
}

const describeEntry = (e: TimelineEntry) => {
  switch (e.kind) {
    case "state":
      return `state ${e.from ?? "-"}→${e.to}${e.event ? " +event" : ""}`;
    case "event":
      return `event ${e.event.type}`;
    case "delivery":
      return `delivery ${e.delivery.event_type} (${e.delivery.attempts.length} attempts)`;
    case "refund":
      return `refund ${e.refund.amount} ${e.refund.status}`;
  }
};

let a: TestMerchant;
let b: TestMerchant;
let p: Payment;
beforeAll(async () => {
  a = await seedTestMerchant();
  b = await seedTestMerchant();
  p = await livedPayment(a);
  // The same life for another merchant and for a's live environment: none of it may show.
  await livedPayment(b);
  await livedPayment(a, true);
});

describe("paymentTimeline", () => {
  it("tells the payment's life in time order: state changes, events, deliveries with attempts, refunds", async () => {
    const t = await paymentTimeline(await a.ctx(), p.id);
    expect(t.payment).toMatchObject({ id: p.id, status: "succeeded" });
    expect(t.entries.map(describeEntry)).toEqual([
      "state -→awaiting_customer",
      "state awaiting_customer→unknown",
      "state unknown→unresolved +event",
      "event payment.unresolved",
      "delivery payment.unresolved (2 attempts)",
      "state unresolved→succeeded +event",
      "event payment.succeeded",
      "delivery payment.succeeded (0 attempts)",
      "refund 400 succeeded",
      "event refund.succeeded",
      "refund 100 pending",
      "delivery refund.succeeded (0 attempts)",
    ]);
    const times = t.entries.map((e) => e.at);
    expect([...times].sort()).toEqual(times);
    expect(t.truncated).toBe(false);
  });

  it("links each change to its event, keeps staff's reason, and shows every attempt", async () => {
    const t = await paymentTimeline(await a.ctx(), p.id);
    const states = t.entries.filter((e) => e.kind === "state");
    const events = t.entries.filter((e) => e.kind === "event");
    expect(states[2]!.event).toBe(events[0]!.event.id);
    expect(states[3]).toMatchObject({ from: "unresolved", to: "succeeded", reason: "Provider statement shows it paid", event: events[1]!.event.id });
    const delivery = t.entries.find((e) => e.kind === "delivery")!;
    expect(delivery.delivery.event).toBe(events[0]!.event.id);
    expect(delivery.delivery.attempts).toEqual([
      expect.objectContaining({ status_code: 500, latency_ms: 120, error: null }),
      expect.objectContaining({ status_code: null, latency_ms: 10_000, error: "timed out" }),
    ]);
  });

  it("says what a refund may still take: the amount less pending and succeeded refunds", async () => {
    expect((await paymentTimeline(await a.ctx(), p.id)).refundable).toBe(500);
    const waiting = await seedPayment(a, "awaiting_customer");
    expect((await paymentTimeline(await a.ctx(), waiting.id)).refundable).toBe(0);
  });

  it("says what a refund may still take from all the payment's refunds, beyond the ones it lists, as a refund counts them", async () => {
    const many = await seedSucceededPayment(a, { amount: 5_000 });
    // More refunds than the timeline lists: the oldest, left out of the page, still hold their part.
    const count = TIMELINE_LIMIT + 5;
    for (let i = 1; i <= count; i++) await seedPendingRefund(many, { at: new Date(many.createdAt.getTime() + i * 1_000), amount: 10 });
    const ctx = await a.ctx();
    const t = await paymentTimeline(ctx, many.id);
    expect(t.truncated).toBe(true);
    expect(t.refundable).toBe(5_000 - count * 10);
    // What the page offers is exactly what a refund may take: a cent more is refused, all of it is not.
    const over = await createRefund(ctx, { paymentId: many.id, amount: t.refundable + 1 }).then(() => null, (e: unknown) => e);
    expect(isServiceError(over) && over.code).toBe("refund_amount_invalid");
    await createRefund(ctx, { paymentId: many.id, amount: t.refundable });
    expect((await paymentTimeline(ctx, many.id)).refundable).toBe(0);
  });

  it("never runs backwards, even when unknown_since was moved before the payment was created", async () => {
    const db = await getDb();
    const aged = await seedPayment(a, "unresolved");
    await db.update(payments).set({ unknownSince: new Date(aged.createdAt.getTime() - 24 * 60 * MIN) }).where(eq(payments.id, aged.id));
    const t = await paymentTimeline(await a.ctx(), aged.id);
    expect(t.entries.map(describeEntry)).toEqual(["state -→awaiting_customer", "state awaiting_customer→unknown", "state unknown→unresolved"]);
    expect(new Set(t.entries.map((e) => e.at))).toEqual(new Set([aged.createdAt.toISOString()]));
  });

  it("finds another merchant's or environment's payment exactly as missing as a made-up one", async () => {
    const missing = async (ctx: Awaited<ReturnType<TestMerchant["ctx"]>>, id: string) => {
      const e = await paymentTimeline(ctx, id).then(() => null, (err: unknown) => err);
      expect(isServiceError(e) && e.code).toBe("resource_missing");
    };
    await missing(await b.ctx(), p.id);
    await missing(await a.ctx(true), p.id);
    await missing(await a.ctx(), newId("payment"));
    await missing(await a.ctx(), "not-an-id");
  });

  it("lists events by object and deliveries by several events in one query each, within the tenant", async () => {
    const t = await paymentTimeline(await a.ctx(), p.id);
    const eventIds = t.entries.flatMap((e) => (e.kind === "event" ? [e.event.id] : []));
    const asB = await b.ctx();
    expect((await listEvents(asB, { objectIds: [p.id] }, { limit: 10 })).data).toEqual([]);
    expect((await listDeliveries(asB, { eventIds }, { limit: 10 })).data).toEqual([]);
    expect((await listEvents(await a.ctx(), { objectIds: [] }, { limit: 10 })).data).toEqual([]);
    const mine = await listDeliveries(await a.ctx(), { eventIds }, { limit: 10 });
    expect(new Set(mine.data.map((d) => d.eventId))).toEqual(new Set(eventIds));
  });
});
