import { and, asc, eq, inArray } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getDb } from "@/db/client";
import { webhookAttempts, webhookDeliveries, webhookEndpoints } from "@/db/schema";
import { manualClock } from "@/server/clock";
import { verifySignatureHeader } from "@/server/domain/signatures";
import { GIVE_UP_AFTER_MS, RETRY_DELAYS_S } from "@/server/domain/webhooks";
import { LocalRunner } from "@/server/jobs/local-runner";
import { providers } from "@/server/providers/registry";
import { seedPayment, seedTestMerchant } from "@/server/testing/fixtures";
import { startReceiver, testPoster, type Receiver } from "@/server/testing/webhooks";
import { transitionPayment } from "../payments/transition-payment";
import { createEndpoint } from "./create-endpoint";
import { recordAttempts } from "./attempt-delivery";
import { fanOutEvents } from "./fan-out-events";
import { rollEndpointSecret } from "./roll-endpoint-secret";
import { updateEndpoint } from "./update-endpoint";

const receivers: Receiver[] = [];
const poster = testPoster();
afterAll(async () => {
  poster.close();
  await Promise.all(receivers.map((r) => r.close()));
});

async function receiver(respond?: Parameters<typeof startReceiver>[0]): Promise<Receiver> {
  const r = await startReceiver(respond);
  receivers.push(r);
  return r;
}

/** A merchant, a runner confined to it on a clock the test moves, and a way to make events. */
async function world(start = "2026-03-01T08:00:00Z") {
  const m = await seedTestMerchant();
  const db = await getDb();
  const clock = manualClock(start);
  const runner = new LocalRunner({ db, clock, providers, webhooks: poster, merchantId: m.merchant.id });
  const run = async () => {
    await runner.tick();
    await runner.settled();
  };
  const succeed = async (livemode = false) => {
    const p = await seedPayment(m, "awaiting_customer", { at: clock.now(), livemode });
    const { event } = await transitionPayment({ db, clock }, { paymentId: p.id, to: "succeeded" });
    return event!;
  };
  return { m, db, clock, run, succeed, ctx: (livemode = false) => m.ctx(livemode, clock) };
}

const offsetsS = (attempts: { attemptedAt: Date }[], t0: number) => attempts.map((a) => (a.attemptedAt.getTime() - t0) / 1000);

async function attemptsOf(deliveryId: string) {
  const db = await getDb();
  return db.select().from(webhookAttempts).where(eq(webhookAttempts.deliveryId, deliveryId)).orderBy(asc(webhookAttempts.id));
}

async function onlyDelivery(endpointId: string) {
  const db = await getDb();
  const rows = await db.select().from(webhookDeliveries).where(eq(webhookDeliveries.endpointId, endpointId));
  expect(rows).toHaveLength(1);
  return rows[0]!;
}

/** Moves the clock to each next attempt and runs the runner, until the delivery settles. */
async function followSchedule(w: Awaited<ReturnType<typeof world>>, endpointId: string) {
  for (let i = 0; i < 20; i++) {
    const d = await onlyDelivery(endpointId);
    if (d.status !== "pending") return d;
    w.clock.set(d.nextAttemptAt!);
    await w.run();
  }
  throw new Error("the delivery never settled");
}

describe("webhook delivery", () => {
  beforeAll(() => {
    expect(RETRY_DELAYS_S).toEqual([60, 300, 1_800, 7_200, 21_600, 43_200]);
  });

  it("POSTs the event JSON signed with the endpoint's secret over the exact bytes sent", async () => {
    const w = await world();
    const r = await receiver();
    const endpoint = await createEndpoint(await w.ctx(), { url: r.url, enabledEvents: ["*"] });
    const event = await w.succeed();
    await w.run();

    expect(r.received).toHaveLength(1);
    const got = r.received[0]!;
    expect(got.headers["content-type"]).toBe("application/json");
    const body = JSON.parse(got.body);
    expect(body).toMatchObject({ id: event.id, object: "event", type: "payment.succeeded", livemode: false });
    expect(body.data.object).toMatchObject({ id: event.objectId, object: "payment", status: "succeeded", metadata: {} });
    // Fields in the API's order, as written, not re-sorted by storage.
    expect(Object.keys(body)).toEqual(["id", "object", "type", "created_at", "livemode", "data"]);
    expect(Object.keys(body.data.object).slice(0, 4)).toEqual(["id", "object", "livemode", "amount"]);
    const header = got.headers["service-signature"] as string;
    expect(header).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
    expect(Number(/t=(\d+)/.exec(header)![1])).toBe(Math.floor(w.clock.now().getTime() / 1000));
    expect(verifySignatureHeader(header, got.body, [endpoint.secret], w.clock.now())).toBe(true);
    expect(verifySignatureHeader(header, got.body, ["whsec_wrong"], w.clock.now())).toBe(false);

    const d = await onlyDelivery(endpoint.id);
    expect(d).toMatchObject({ status: "delivered", attemptCount: 1, nextAttemptAt: null });
    const [attempt] = await attemptsOf(d.id);
    expect(attempt).toMatchObject({ statusCode: 200, error: null, responseBody: "ok" });
  });

  it("a receiver that fails for 2 hours gets attempts at exactly the schedule, then the event, nothing lost", async () => {
    const w = await world();
    const t0 = w.clock.now().getTime();
    const r = await receiver(() => (w.clock.now().getTime() - t0 < 2 * 3600_000 ? 503 : 200));
    const endpoint = await createEndpoint(await w.ctx(), { url: r.url, enabledEvents: ["payment.succeeded"] });
    const event = await w.succeed();
    await w.run();
    const d = await followSchedule(w, endpoint.id);

    expect(d.status).toBe("delivered");
    // 0, +1 min, +5 min, +30 min, +2 h: the fifth attempt is the first after the outage.
    expect(offsetsS(await attemptsOf(d.id), t0)).toEqual([0, 60, 360, 2_160, 9_360]);
    expect(r.received.map((x) => JSON.parse(x.body).id)).toEqual(Array(5).fill(event.id));
    const [ep] = await w.db.select().from(webhookEndpoints).where(eq(webhookEndpoints.id, endpoint.id));
    // Four failures in a row, then a success: never degraded.
    expect(ep).toMatchObject({ consecutiveFailures: 0, degradedSince: null });
  });

  it("a receiver that never succeeds gets 7 attempts, none after 24 h, then the delivery fails; the endpoint degrades and recovers", async () => {
    const w = await world();
    const t0 = w.clock.now().getTime();
    let up = false;
    const r = await receiver(() => (up ? 200 : 500));
    const endpoint = await createEndpoint(await w.ctx(), { url: r.url, enabledEvents: ["*"] });
    await w.succeed();
    await w.run();
    const d = await followSchedule(w, endpoint.id);

    expect(d).toMatchObject({ status: "failed", attemptCount: 7, nextAttemptAt: null });
    const offsets = offsetsS(await attemptsOf(d.id), t0);
    expect(offsets).toEqual([0, 60, 360, 2_160, 9_360, 30_960, 74_160]);
    expect(offsets.every((s) => s * 1000 <= GIVE_UP_AFTER_MS)).toBe(true);
    expect(r.received).toHaveLength(7);

    const [degraded] = await w.db.select().from(webhookEndpoints).where(eq(webhookEndpoints.id, endpoint.id));
    expect(degraded!.consecutiveFailures).toBe(7);
    // Degraded since the fifth failure in a row, and still since then.
    expect(degraded!.degradedSince).toEqual(new Date(t0 + 9_360_000));

    up = true;
    await w.succeed();
    await w.run();
    const [healthy] = await w.db.select().from(webhookEndpoints).where(eq(webhookEndpoints.id, endpoint.id));
    expect(healthy).toMatchObject({ consecutiveFailures: 0, degradedSince: null });
  });

  it("records status, latency, error and the first 1 KB of the answer on each attempt", async () => {
    const w = await world();
    const r = await receiver(() => 500);
    const endpoint = await createEndpoint(await w.ctx(), { url: r.url, enabledEvents: ["*"] });
    await w.succeed();
    await w.run();
    const d = await onlyDelivery(endpoint.id);
    expect(d).toMatchObject({ status: "pending", attemptCount: 1 });
    expect(d.nextAttemptAt).toEqual(new Date(w.clock.now().getTime() + 60_000));
    const [a] = await attemptsOf(d.id);
    expect(a).toMatchObject({ statusCode: 500, responseBody: "nope 500" });
    expect(a!.error).toMatch(/500/);
    expect(a!.latencyMs).toBeGreaterThanOrEqual(0);
  });

  it("signs with both secrets for 24 h after a roll, then with the new one alone", async () => {
    const w = await world();
    const r = await receiver();
    const created = await createEndpoint(await w.ctx(), { url: r.url, enabledEvents: ["*"] });
    const rolled = await rollEndpointSecret(await w.ctx(), created.id);
    expect(rolled.secret).not.toBe(created.secret);

    await w.succeed();
    await w.run();
    const during = r.received[0]!;
    const header = during.headers["service-signature"] as string;
    expect(header.match(/v1=/g)).toHaveLength(2);
    expect(verifySignatureHeader(header, during.body, [created.secret], w.clock.now())).toBe(true);
    expect(verifySignatureHeader(header, during.body, [rolled.secret], w.clock.now())).toBe(true);

    w.clock.advance(24 * 3600_000 + 1_000);
    await w.succeed();
    await w.run();
    const after = r.received[1]!;
    const header2 = after.headers["service-signature"] as string;
    expect(header2.match(/v1=/g)).toHaveLength(1);
    expect(verifySignatureHeader(header2, after.body, [rolled.secret], w.clock.now())).toBe(true);
    expect(verifySignatureHeader(header2, after.body, [created.secret], w.clock.now())).toBe(false);
  });

  it("test events never reach live endpoints, and the reverse", async () => {
    const w = await world();
    const testR = await receiver();
    const liveR = await receiver();
    // http is refused in live mode, so the live endpoint's URL is switched under it in the database.
    await createEndpoint(await w.ctx(false), { url: testR.url, enabledEvents: ["*"] });
    const live = await createEndpoint(await w.ctx(true), { url: "https://93.184.215.14/hooks", enabledEvents: ["*"] });
    await w.db.update(webhookEndpoints).set({ url: liveR.url }).where(eq(webhookEndpoints.id, live.id));

    const testEvent = await w.succeed(false);
    const liveEvent = await w.succeed(true);
    await w.run();
    expect(testR.received.map((x) => JSON.parse(x.body).id)).toEqual([testEvent.id]);
    expect(liveR.received.map((x) => JSON.parse(x.body).id)).toEqual([liveEvent.id]);
  });

  it("only subscribed, enabled endpoints get an event; a disabled endpoint's pending delivery fails without sending", async () => {
    const w = await world();
    const wantsFailed = await receiver();
    const wantsAll = await receiver(() => 500);
    const failedOnly = await createEndpoint(await w.ctx(), { url: wantsFailed.url, enabledEvents: ["payment.failed"] });
    const all = await createEndpoint(await w.ctx(), { url: wantsAll.url, enabledEvents: ["*"] });
    await w.succeed();
    await w.run();
    expect(wantsFailed.received).toHaveLength(0);
    expect(wantsAll.received).toHaveLength(1);
    expect(await w.db.select().from(webhookDeliveries).where(eq(webhookDeliveries.endpointId, failedOnly.id))).toHaveLength(0);

    await updateEndpoint(await w.ctx(), all.id, { disabled: true });
    w.clock.advance(60_000);
    await w.run();
    expect(wantsAll.received).toHaveLength(1);
    const d = await onlyDelivery(all.id);
    expect(d).toMatchObject({ status: "failed", attemptCount: 2 });
    expect((await attemptsOf(d.id))[1]).toMatchObject({ statusCode: null, error: "not sent: the endpoint is disabled" });

    // Disabled endpoints get no new deliveries either.
    await w.succeed();
    await w.run();
    expect(await w.db.select().from(webhookDeliveries).where(eq(webhookDeliveries.endpointId, all.id))).toHaveLength(1);
  });

  it("does not send a retry picked up more than 24 h after the first attempt (the service was down), and says why", async () => {
    const w = await world();
    const down = await receiver(() => 500);
    const ep = await createEndpoint(await w.ctx(), { url: down.url, enabledEvents: ["*"] });
    await w.succeed();
    await w.run();
    const d = await onlyDelivery(ep.id);
    expect(d).toMatchObject({ status: "pending", attemptCount: 1 });
    // The retry was due a minute later; the runner next runs a day and a minute after the first attempt.
    w.clock.advance(GIVE_UP_AFTER_MS + 60_000);
    await w.run();
    expect(down.received).toHaveLength(1);
    expect(await onlyDelivery(ep.id)).toMatchObject({ status: "failed", attemptCount: 2, nextAttemptAt: null });
    expect((await attemptsOf(d.id))[1]).toMatchObject({ statusCode: null, error: "not sent: more than 24 h after the first attempt" });
  });

  it("fans each event out exactly once, however many workers relay at the same time", async () => {
    const w = await world();
    const endpoints = await Promise.all(
      [1, 2, 3].map(async () => createEndpoint(await w.ctx(), { url: "http://127.0.0.1:9/never", enabledEvents: ["*"] })),
    );
    const made = await Promise.all(Array.from({ length: 30 }, () => w.succeed()));
    const results = await Promise.all(Array.from({ length: 4 }, () => fanOutEvents({ db: w.db, clock: w.clock }, { limit: 7, merchantId: w.m.merchant.id })));
    let relayed = results.reduce((n, r) => n + r.events, 0);
    while (relayed < made.length) {
      const more = await fanOutEvents({ db: w.db, clock: w.clock }, { limit: 7, merchantId: w.m.merchant.id });
      if (more.events === 0) break;
      relayed += more.events;
    }
    expect(relayed).toBe(30);
    const rows = await w.db
      .select()
      .from(webhookDeliveries)
      .where(inArray(webhookDeliveries.endpointId, endpoints.map((e) => e.id)));
    expect(rows).toHaveLength(90);
    expect(new Set(rows.map((r) => `${r.eventId} ${r.endpointId}`)).size).toBe(90);
  });
});

describe("recording attempts in batches", () => {
  const fakeDelivery = async (w: Awaited<ReturnType<typeof world>>, endpointId: string) => {
    const event = await w.succeed();
    await fanOutEvents({ db: w.db, clock: w.clock }, { merchantId: w.m.merchant.id });
    const [row] = await w.db.select().from(webhookDeliveries).where(and(eq(webhookDeliveries.endpointId, endpointId), eq(webhookDeliveries.eventId, event.id)));
    return row!;
  };
  const result = (delivery: typeof webhookDeliveries.$inferSelect, endpointId: string, ok: boolean, atMs: number, body = "x") => ({
    delivery,
    endpointId,
    attemptedAt: new Date(atMs),
    post: { ok, statusCode: ok ? 200 : 500, latencyMs: 3, error: ok ? null : "HTTP 500", responseBody: body },
    counts: true,
    status: ok ? ("delivered" as const) : ("pending" as const),
    retryAt: ok ? null : new Date(atMs + 60_000),
  });

  it("counts failures across a batch and dates degradation at the fifth in a row", async () => {
    const w = await world();
    const endpoint = await createEndpoint(await w.ctx(), { url: "http://127.0.0.1:9/never", enabledEvents: ["*"] });
    await w.db.update(webhookEndpoints).set({ consecutiveFailures: 3 }).where(eq(webhookEndpoints.id, endpoint.id));
    const t = w.clock.now().getTime();
    const ds = [];
    for (let i = 0; i < 3; i++) ds.push(await fakeDelivery(w, endpoint.id));
    const outcomes = await recordAttempts({ db: w.db, clock: w.clock }, ds.map((d, i) => result(d, endpoint.id, false, t + i * 1000)));
    expect([...outcomes.values()].map((o) => o.status)).toEqual(["pending", "pending", "pending"]);
    const [ep] = await w.db.select().from(webhookEndpoints).where(eq(webhookEndpoints.id, endpoint.id));
    // 3 before, then failures at t, t+1 s, t+2 s: the fifth in a row is the one at t+1 s.
    expect(ep).toMatchObject({ consecutiveFailures: 6, degradedSince: new Date(t + 1000) });

    // A batch with a success then five failures: reset, and degraded since the fifth of those.
    const more = [];
    for (let i = 0; i < 6; i++) more.push(await fakeDelivery(w, endpoint.id));
    await recordAttempts({ db: w.db, clock: w.clock }, more.map((d, i) => result(d, endpoint.id, i === 0, t + 10_000 + i * 1000)));
    const [again] = await w.db.select().from(webhookEndpoints).where(eq(webhookEndpoints.id, endpoint.id));
    expect(again).toMatchObject({ consecutiveFailures: 5, degradedSince: new Date(t + 15_000) });
  });

  it("keeps an attempt whose delivery was overtaken, without moving the delivery again", async () => {
    const w = await world();
    const endpoint = await createEndpoint(await w.ctx(), { url: "http://127.0.0.1:9/never", enabledEvents: ["*"] });
    const d = await fakeDelivery(w, endpoint.id);
    const t = w.clock.now().getTime();
    const first = await recordAttempts({ db: w.db, clock: w.clock }, [result(d, endpoint.id, true, t)]);
    expect(first.get(d.id)).toMatchObject({ status: "delivered" });
    // A second worker with the same stale view of the delivery (attempt count 0).
    const second = await recordAttempts({ db: w.db, clock: w.clock }, [result(d, endpoint.id, false, t + 1, "late\u0000answer")]);
    expect(second.has(d.id)).toBe(false);
    const [row] = await w.db.select().from(webhookDeliveries).where(eq(webhookDeliveries.id, d.id));
    expect(row).toMatchObject({ status: "delivered", attemptCount: 1 });
    const attempts = await attemptsOf(d.id);
    expect(attempts.map((a) => a.responseBody)).toEqual(["x", "lateanswer"]);
    // The overtaken worker's failure is a copy of an attempt already counted: the endpoint stays healthy.
    const [ep] = await w.db.select().from(webhookEndpoints).where(eq(webhookEndpoints.id, endpoint.id));
    expect(ep).toMatchObject({ consecutiveFailures: 0, degradedSince: null });
  });

  it("counts toward an endpoint's health only the attempts whose delivery moved", async () => {
    const w = await world();
    const endpoint = await createEndpoint(await w.ctx(), { url: "http://127.0.0.1:9/never", enabledEvents: ["*"] });
    const other = await createEndpoint(await w.ctx(), { url: "http://127.0.0.1:9/other", enabledEvents: ["*"] });
    await w.db.update(webhookEndpoints).set({ consecutiveFailures: 3 }).where(eq(webhookEndpoints.id, endpoint.id));
    const t = w.clock.now().getTime();
    const ds = [];
    for (let i = 0; i < 3; i++) ds.push(await fakeDelivery(w, endpoint.id));
    const elsewhere = await w.db.select().from(webhookDeliveries).where(eq(webhookDeliveries.endpointId, other.id));
    // Another worker already recorded the first delivery's attempt (a success).
    await recordAttempts({ db: w.db, clock: w.clock }, [result(ds[0]!, endpoint.id, true, t)]);
    await w.db.update(webhookEndpoints).set({ consecutiveFailures: 3 }).where(eq(webhookEndpoints.id, endpoint.id));
    // A batch with the overtaken copy (a failure) and two fresh failures,
    // beside another endpoint's deliveries, which are counted in the same statement.
    const outcomes = await recordAttempts({ db: w.db, clock: w.clock }, [
      result(ds[0]!, endpoint.id, false, t + 1000),
      result(ds[1]!, endpoint.id, false, t + 2000),
      result(ds[2]!, endpoint.id, false, t + 3000),
      ...elsewhere.map((d, i) => result(d, other.id, false, t + 4000 + i)),
    ]);
    expect(outcomes.has(ds[0]!.id)).toBe(false);
    expect(outcomes.size).toBe(2 + elsewhere.length);
    const [ep] = await w.db.select().from(webhookEndpoints).where(eq(webhookEndpoints.id, endpoint.id));
    // 3 before, then two failures counted (t+2 s, t+3 s), not three: the fifth in a row is at t+3 s.
    expect(ep).toMatchObject({ consecutiveFailures: 5, degradedSince: new Date(t + 3000) });
    const [theOther] = await w.db.select().from(webhookEndpoints).where(eq(webhookEndpoints.id, other.id));
    expect(theOther!.consecutiveFailures).toBe(elsewhere.length);
    expect(elsewhere.length).toBeGreaterThan(0);
  });
});
