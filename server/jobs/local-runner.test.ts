import { eq, inArray } from "drizzle-orm";
import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { getDb } from "@/db/client";
import { events, payments, refunds, webhookAttempts, webhookDeliveries } from "@/db/schema";
import { DELIVERY_LEASE_MS } from "@/server/domain/webhooks";
import { createEndpoint } from "@/server/services/webhooks/create-endpoint";
import { deleteEndpoint } from "@/server/services/webhooks/delete-endpoint";
import { updateEndpoint } from "@/server/services/webhooks/update-endpoint";
import { fanOutEvents } from "@/server/services/webhooks/fan-out-events";
import { transitionPayment } from "@/server/services/payments/transition-payment";
import { manualClock, systemClock } from "@/server/clock";
import { providers, sandbox } from "@/server/providers/registry";
import { seedPayment, seedPendingRefund, seedTestMerchant, type TestMerchant } from "@/server/testing/fixtures";
import { commitEvents, startReceiver, testPoster } from "@/server/testing/webhooks";
import type { WebhookSender } from "@/server/services/webhooks/attempt-delivery";
import type { WebhookPostResult } from "@/server/webhooks/post-webhook";
import { holdDueWork } from "@/server/testing/jobs";
import { claimDueDeliveries } from "./due-work";
import { CLAIM_SIZE, DELIVERY_CONCURRENCY, DELIVERY_PER_ENDPOINT, LocalRunner } from "./local-runner";

describe("local runner", () => {
  let m: TestMerchant;
  beforeAll(async () => {
    m = await seedTestMerchant();
  });
  afterEach(() => {
    sandbox.clock = systemClock;
  });

  it("expires what is due, leaves what is not, and reconciles unknown payments", async () => {
    const db = await getDb();
    const t0 = new Date();
    const due = await seedPayment(m, "awaiting_customer", { msisdn: "263770000003", at: t0, expiresInMs: 1_000 });
    const later = await seedPayment(m, "awaiting_customer", { msisdn: "263770000003", at: t0, expiresInMs: 60_000 });
    const unknown = await seedPayment(m, "unknown", { msisdn: "263770000001", at: t0 });
    const clock = manualClock(new Date(t0.getTime() + 2_000));
    sandbox.clock = clock;
    const handled = await new LocalRunner({ db, clock, providers, webhooks: testPoster(), merchantId: m.merchant.id }).tick();
    expect(handled).toEqual(expect.arrayContaining([due.id, unknown.id]));
    expect(handled).not.toContain(later.id);
    const rows = await db.select().from(payments).where(inArray(payments.id, [due.id, later.id, unknown.id]));
    const status = Object.fromEntries(rows.map((r) => [r.id, r.status]));
    expect(status).toEqual({ [due.id]: "expired", [later.id]: "awaiting_customer", [unknown.id]: "succeeded" });
  });

  it("two runners on one database never handle the same payment twice", async () => {
    const db = await getDb();
    const t0 = new Date();
    const seeded = await Promise.all(
      Array.from({ length: 60 }, () => seedPayment(m, "awaiting_customer", { msisdn: "263770000003", at: t0, expiresInMs: 1_000 })),
    );
    const clock = manualClock(new Date(t0.getTime() + 5_000));
    sandbox.clock = clock;
    const [a, b] = await Promise.all([new LocalRunner({ db, clock, providers, webhooks: testPoster(), merchantId: m.merchant.id }).tick(), new LocalRunner({ db, clock, providers, webhooks: testPoster(), merchantId: m.merchant.id }).tick()]);
    const mine = new Set(seeded.map((p) => p.id));
    const handledA = a;
    const handledB = b;
    expect(handledA.filter((id) => handledB.includes(id))).toEqual([]);
    expect(new Set([...handledA, ...handledB]).size).toBe(60);
    const evts = await db.select({ objectId: events.objectId }).from(events).where(inArray(events.objectId, [...mine]));
    expect(evts).toHaveLength(60);
  });

  it("a claimed payment whose worker died is due again when the lease ends", async () => {
    const db = await getDb();
    const t0 = new Date();
    const p = await seedPayment(m, "awaiting_customer", { msisdn: "263770000003", at: t0, expiresInMs: 1_000 });
    // Claimed (lease set) by a worker that then died.
    await db.update(payments).set({ nextCheckAt: new Date(t0.getTime() + 31_000) }).where(eq(payments.id, p.id));
    const clock = manualClock(new Date(t0.getTime() + 2_000));
    sandbox.clock = clock;
    const runner = new LocalRunner({ db, clock, providers, webhooks: testPoster(), merchantId: m.merchant.id });
    expect(await runner.tick()).not.toContain(p.id);
    clock.advance(30_000);
    expect(await runner.tick()).toContain(p.id);
  });

  it("a backlog of one kind does not hold up another: a due refund is handled in the first round, before the second batch of expiries", async () => {
    const db = await getDb();
    const own = await seedTestMerchant();
    const t0 = new Date();
    const backlog = await Promise.all(
      Array.from({ length: CLAIM_SIZE.expiry + 30 }, () => seedPayment(own, "awaiting_customer", { msisdn: "263770000003", at: t0, expiresInMs: 1_000 })),
    );
    const paid = await seedPayment(own, "succeeded", { msisdn: "263770000001", at: t0 });
    const refund = await seedPendingRefund(paid, { at: t0, submitted: true, amount: 500, nextCheckAt: new Date(t0.getTime() + 3_000) });
    const clock = manualClock(new Date(t0.getTime() + 10_000));
    sandbox.clock = clock;
    const runner = new LocalRunner({ db, clock, providers, webhooks: testPoster(), merchantId: own.merchant.id });
    const handled = await runner.tick();
    // One claim of expiries (all it may take), then the refund's turn, then the other 30 (in a
    // later pass if this one ran out of time).
    expect(handled.indexOf(refund.id)).toBe(CLAIM_SIZE.expiry);
    for (let more = await runner.tick(); more.length > 0; more = await runner.tick()) handled.push(...more);
    expect(new Set(handled)).toEqual(new Set([...backlog.map((p) => p.id), refund.id]));
    const [row] = await db.select({ status: refunds.status }).from(refunds).where(eq(refunds.id, refund.id));
    expect(row?.status).toBe("succeeded");
  });
});

describe("local runner: stopping", () => {
  it("once stopped, settled() waits for the pass that was running, so nothing runs after it", async () => {
    const m = await seedTestMerchant();
    const db = await getDb();
    await seedPayment(m, "awaiting_customer", { at: new Date(Date.now() - 60_000), expiresInMs: 1_000 });
    const runner = new LocalRunner({ db, clock: systemClock, providers, webhooks: testPoster(), merchantId: m.merchant.id });
    const hold = holdDueWork(runner);
    runner.start();
    await vi.waitFor(() => expect(hold.holding).toBe(true));
    runner.stop();
    let quiet = false;
    const settling = runner.settled().then(() => (quiet = true));
    await new Promise((r) => setTimeout(r, 100));
    expect(quiet).toBe(false);
    hold.release();
    await settling;
    expect(hold.finished).toBe(true);
  });
});

describe("local runner: one part failing", () => {
  it("webhooks that cannot be relayed or signed do not stop expiries", async () => {
    const m = await seedTestMerchant();
    const db = await getDb();
    const t0 = new Date();
    // An event to relay, and an expiry due.
    const succeeded = await seedPayment(m, "awaiting_customer", { at: t0 });
    await transitionPayment({ db, clock: systemClock }, { paymentId: succeeded.id, to: "succeeded" });
    const due = await seedPayment(m, "awaiting_customer", { msisdn: "263770000003", at: t0, expiresInMs: 1_000 });
    const clock = manualClock(new Date(t0.getTime() + 2_000));
    sandbox.clock = clock;
    const runner = new LocalRunner({ db, clock, providers, webhooks: testPoster(), merchantId: m.merchant.id });
    // As when every endpoint's secret is sealed under another key: both webhook parts throw.
    const broken = runner as unknown as { relayEvents: () => Promise<never>; startDeliveries: () => Promise<never> };
    let calls = 0;
    const fail = () => {
      calls++;
      return Promise.reject(new Error("Unsupported state or unable to authenticate data"));
    };
    broken.relayEvents = fail;
    broken.startDeliveries = fail;
    const handled = await runner.tick();
    expect(calls).toBeGreaterThan(0);
    expect(handled).toContain(due.id);
    const [row] = await db.select().from(payments).where(eq(payments.id, due.id));
    expect(row!.status).toBe("expired");
  });
});

describe("local runner: a webhook attempt whose worker died", () => {
  it("is attempted again when its lease ends, not before, and counts as one attempt", async () => {
    const m = await seedTestMerchant();
    const db = await getDb();
    const r = await startReceiver(() => 200);
    const poster = testPoster();
    try {
      await createEndpoint(await m.ctx(), { url: r.url, enabledEvents: ["*"] });
      const t0 = new Date();
      const p = await seedPayment(m, "awaiting_customer", { at: t0 });
      await transitionPayment({ db, clock: manualClock(t0) }, { paymentId: p.id, to: "succeeded" });
      const deliveryIds = (await fanOutEvents({ db, clock: manualClock(t0) }, { merchantId: m.merchant.id })).deliveries.map((d) => d.id);
      // A worker claims it, then dies before it posts or records anything.
      expect(await claimDueDeliveries(db, t0, 10, { merchantId: m.merchant.id })).toEqual(deliveryIds);
      const clock = manualClock(new Date(t0.getTime() + DELIVERY_LEASE_MS - 1_000));
      const runner = new LocalRunner({ db, clock, providers, webhooks: poster, merchantId: m.merchant.id });
      await runner.tick();
      await runner.settled();
      expect(r.received).toHaveLength(0);
      clock.set(new Date(t0.getTime() + DELIVERY_LEASE_MS));
      await runner.tick();
      await runner.settled();
      expect(r.received).toHaveLength(1);
      const [d] = await db.select().from(webhookDeliveries).where(eq(webhookDeliveries.id, deliveryIds[0]!));
      expect(d).toMatchObject({ status: "delivered", attemptCount: 1 });
      expect(await db.select().from(webhookAttempts).where(eq(webhookAttempts.deliveryId, deliveryIds[0]!))).toHaveLength(1);
    } finally {
      poster.close();
      await r.close();
    }
  });
});

/**
 * A sender whose receivers answer only when the test says: each POST is kept with the event it
 * carried, and `answer` settles every one in flight. `overlapping` lists POSTs of an event sent to
 * an address while another POST of it there was still in flight.
 */
function heldSender() {
  const posted: string[] = [];
  const overlapping: string[] = [];
  const open = new Set<string>();
  let waiting: ((r: WebhookPostResult) => void)[] = [];
  const sender: WebhookSender = {
    post(url, body) {
      const key = `${url} ${(JSON.parse(body) as { id: string }).id}`;
      posted.push(key);
      if (open.has(key)) overlapping.push(key);
      open.add(key);
      return new Promise<WebhookPostResult>((resolve) =>
        waiting.push((r) => {
          open.delete(key);
          resolve(r);
        }),
      );
    },
  };
  /** Settles the POSTs in flight, gives the runner a moment to record them and start more; returns how many it settled. */
  async function answer(result: WebhookPostResult): Promise<number> {
    const now = waiting;
    waiting = [];
    for (const settle of now) settle(result);
    await new Promise((r) => setTimeout(r, 150));
    return now.length;
  }
  return { sender, posted, overlapping, answer };
}

const OK: WebhookPostResult = { ok: true, statusCode: 200, latencyMs: 5, error: null, responseBody: "ok" };
const TIMED_OUT: WebhookPostResult = { ok: false, statusCode: null, latencyMs: 10_000, error: "timed out", responseBody: "" };

describe("local runner: a delivery that waits in the queue past its claim", () => {
  /** One endpoint with a claim's worth of deliveries: its share in flight, as many queued behind them, and a way to answer. */
  async function queuedBehindShare() {
    const m = await seedTestMerchant();
    const db = await getDb();
    const clock = manualClock(new Date());
    const ctx = await m.ctx(false, clock);
    const endpoint = await createEndpoint(ctx, { url: "http://127.0.0.1:9/hooks", enabledEvents: ["*"] });
    const held = heldSender();
    const runner = new LocalRunner({ db, clock, providers, webhooks: held.sender, merchantId: m.merchant.id });
    await commitEvents(m.merchant.id, DELIVERY_CONCURRENCY);
    await runner.tick();
    expect(held.posted).toHaveLength(DELIVERY_PER_ENDPOINT);
    return { m, db, clock, ctx, endpoint, runner, ...held };
  }

  it("goes to the endpoint as it is when it is sent: a new URL set meanwhile, or nothing once the endpoint is deleted", async () => {
    const moved = await queuedBehindShare();
    moved.clock.advance(5_000);
    await updateEndpoint(moved.ctx, moved.endpoint.id, { url: "http://127.0.0.1:9/new-hooks" });
    moved.clock.advance(5_000);
    while ((await moved.answer(OK)) > 0);
    await moved.runner.settled();
    expect(moved.posted.slice(DELIVERY_PER_ENDPOINT).every((p) => p.startsWith("http://127.0.0.1:9/new-hooks "))).toBe(true);
    expect(new Set(moved.posted).size).toBe(DELIVERY_CONCURRENCY);

    const deleted = await queuedBehindShare();
    deleted.clock.advance(5_000);
    await deleteEndpoint(deleted.ctx, deleted.endpoint.id);
    deleted.clock.advance(5_000);
    while ((await deleted.answer(TIMED_OUT)) > 0);
    await deleted.runner.settled();
    expect(deleted.posted).toHaveLength(DELIVERY_PER_ENDPOINT);
  });

  it("with two instances and an endpoint's share shrinking under its backlog (receivers timing out), is never sent twice at once, and every POST is a recorded attempt", async () => {
    const m = await seedTestMerchant();
    const db = await getDb();
    const clock = manualClock(new Date());
    const ctx = await m.ctx(false, clock);
    await createEndpoint(ctx, { url: "http://127.0.0.1:9/slow", enabledEvents: ["payment.succeeded"] });
    for (let i = 0; i < 15; i++) await createEndpoint(ctx, { url: `http://127.0.0.1:9/other-${i}`, enabledEvents: ["payment.failed"] });
    const { sender, posted, overlapping, answer } = heldSender();
    const a = new LocalRunner({ db, clock, providers, webhooks: sender, merchantId: m.merchant.id });
    const b = new LocalRunner({ db, clock, providers, webhooks: sender, merchantId: m.merchant.id });

    // /slow alone has work: instance A claims all of it, its share in flight and as many queued.
    await commitEvents(m.merchant.id, 2 * DELIVERY_CONCURRENCY, "payment.succeeded");
    await a.tick();
    // Then fifteen endpoints more: /slow's share of A's slots shrinks, and its queue drains a few per 10 s.
    await commitEvents(m.merchant.id, 49, "payment.failed");
    await a.tick();
    for (let i = 0; i < 9; i++) {
      clock.advance(10_000);
      await answer(TIMED_OUT);
      // From a minute on, the queued deliveries' leases have run out: instance B claims too.
      if (i >= 5) await b.tick();
    }
    a.stop();
    b.stop();
    do clock.advance(10_000);
    while ((await answer(TIMED_OUT)) > 0);
    await Promise.all([a.settled(), b.settled()]);

    expect(overlapping).toEqual([]);
    const deliveries = await db.select().from(webhookDeliveries).where(eq(webhookDeliveries.merchantId, m.merchant.id));
    expect(posted.length).toBe(deliveries.reduce((sum, d) => sum + d.attemptCount, 0));
  });
});
