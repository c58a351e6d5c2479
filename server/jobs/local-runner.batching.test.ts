import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { getDb } from "@/db/client";
import { systemClock } from "@/server/clock";
import { providers } from "@/server/providers/registry";
import { createEndpoint } from "@/server/services/webhooks/create-endpoint";
import { fanOutEvents } from "@/server/services/webhooks/fan-out-events";
import { seedPayment, seedTestMerchant, type TestMerchant } from "@/server/testing/fixtures";
import { commitEvents, startReceiver, testPoster, type Receiver } from "@/server/testing/webhooks";
import { holdDueWork } from "@/server/testing/jobs";
import * as dueWork from "./due-work";
import { endpointShare } from "@/server/domain/webhooks";
import { DELIVERY_CONCURRENCY, DELIVERY_PER_ENDPOINT, LocalRunner, PASS_BUDGET_MS, PASS_SPACING_MS } from "./local-runner";

// The real claim, counted.
vi.mock("./due-work", async (real) => {
  const mod = await real<typeof import("./due-work")>();
  return { ...mod, claimDueDeliveriesSharing: vi.fn(mod.claimDueDeliveriesSharing) };
});
const claims = vi.mocked(dueWork.claimDueDeliveriesSharing);

const poster = testPoster();
afterAll(() => poster.close());

/** A merchant with one endpoint on a live receiver, and a way to commit n events at once. */
async function world() {
  const m: TestMerchant = await seedTestMerchant();
  const receiver = await startReceiver();
  const db = await getDb();
  await createEndpoint(await m.ctx(), { url: receiver.url, enabledEvents: ["*"] });
  const runner = new LocalRunner({ db, clock: systemClock, providers, webhooks: poster, merchantId: m.merchant.id });
  const commit = (n: number) => commitEvents(m.merchant.id, n);
  return { m, runner, receiver, commit };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe("local runner batching", () => {
  let w: Awaited<ReturnType<typeof world>>;
  beforeAll(async () => {
    w = await world();
  });
  afterAll(async () => {
    w.runner.stop();
    await w.receiver.close();
  });

  it("a backlog of deliveries is claimed as attempts finish, all in one pass", async () => {
    await w.commit(300);
    claims.mockClear();
    await w.runner.tick();
    await vi.waitFor(() => expect(w.receiver.received).toHaveLength(300), { timeout: 30_000 });
    // 128 at first (two batches of slots), then refills while each claim came back full.
    expect(claims.mock.calls.length).toBeGreaterThanOrEqual(3);
    await w.runner.settled();
  });

  it("without a backlog, finished attempts claim nothing more", async () => {
    w.receiver.received.length = 0;
    await w.commit(3);
    claims.mockClear();
    await w.runner.tick();
    await vi.waitFor(() => expect(w.receiver.received).toHaveLength(3));
    await w.runner.settled();
    await sleep(50);
    // The pass claims before its other work and after it; the three attempts add none.
    expect(claims.mock.calls.length).toBeLessThanOrEqual(2);
  });

  it("new work arriving in a burst shares passes: at most one per PASS_SPACING_MS", async () => {
    w.receiver.received.length = 0;
    const passes = vi.spyOn(w.runner, "tick");
    w.runner.start();
    try {
      await vi.waitFor(() => expect(passes).toHaveBeenCalled());
      const started = performance.now();
      const burst = 40;
      for (let i = 0; i < burst; i++) {
        await w.commit(1);
        w.runner.notify();
        await sleep(5);
      }
      await vi.waitFor(() => expect(w.receiver.received).toHaveLength(burst), { timeout: 10_000 });
      const elapsed = performance.now() - started;
      // Spaced passes are bounded by the time taken (on a busy machine the burst takes longer, and
      // so may its passes); one pass per notification would be at least one per commit.
      expect(passes.mock.calls.length).toBeLessThanOrEqual(Math.ceil(elapsed / PASS_SPACING_MS) + 2);
      expect(passes.mock.calls.length).toBeLessThan(burst);
    } finally {
      w.runner.stop();
      await w.runner.settled();
    }
  });

  it("an event recorded while a pass waits on slow work (a provider timing out) is delivered beside that pass, not after it", async () => {
    w.receiver.received.length = 0;
    // Something due, so that the pass runs a batch of work: held here as a provider's timeouts would hold it.
    await seedPayment(w.m, "awaiting_customer", { at: new Date(Date.now() - 60_000), expiresInMs: 1_000 });
    const hold = holdDueWork(w.runner);
    try {
      w.runner.start();
      await vi.waitFor(() => expect(hold.holding).toBe(true), { timeout: 5_000 });
      await w.commit(1);
      w.runner.notify();
      // Within the pass budget and a little: the pass itself is still held.
      await vi.waitFor(() => expect(w.receiver.received).toHaveLength(1), { timeout: PASS_BUDGET_MS + 2_000 });
    } finally {
      hold.release();
      hold.restore();
      w.runner.stop();
      await w.runner.settled();
    }
  });
});

/** Answers only after the poster has given up (2 s): every attempt to it waits out its timeout. */
const silentReceiver = () => startReceiver(() => sleep(2_500).then(() => 200));

/**
 * Commits `backlog` succeeded events and, after them, 10 failed ones, each made into deliveries;
 * then runs a runner and checks, before the first attempts of the backlog time out, that the 10
 * reached `live` and what `check` says of the rest.
 */
async function deliverBehindBacklog(merchantId: string, backlog: number, live: Receiver, check: () => void) {
  const db = await getDb();
  await commitEvents(merchantId, backlog, "payment.succeeded");
  await fanOutEvents({ db, clock: systemClock }, { merchantId });
  await sleep(5);
  await commitEvents(merchantId, 10, "payment.failed");
  await fanOutEvents({ db, clock: systemClock }, { merchantId });
  const runner = new LocalRunner({ db, clock: systemClock, providers, webhooks: poster, merchantId });
  try {
    const started = Date.now();
    runner.start();
    await vi.waitFor(() => expect(live.received).toHaveLength(10), { timeout: 1_700, interval: 20 });
    expect(Date.now() - started).toBeLessThan(2_000);
    // Every request the backlog's endpoints got by now is still open.
    await sleep(1_900 - (Date.now() - started));
    check();
  } finally {
    runner.stop();
    await runner.settled();
  }
}

describe("local runner: one endpoint's backlog among others", () => {
  it("an endpoint that answers nothing holds at most its share of the slots, and another endpoint's webhooks go meanwhile", async () => {
    const m = await seedTestMerchant();
    const ctx = await m.ctx();
    const [silent, live] = await Promise.all([silentReceiver(), startReceiver()]);
    await createEndpoint(ctx, { url: silent.url, enabledEvents: ["payment.succeeded"] });
    await createEndpoint(ctx, { url: live.url, enabledEvents: ["payment.failed"] });
    // The silent endpoint's backlog is older than the other's deliveries, and more than one claim
    // reads: oldest first alone would give it every slot until it had been worked through.
    try {
      await deliverBehindBacklog(m.merchant.id, 600, live, () => expect(silent.received).toHaveLength(DELIVERY_PER_ENDPOINT));
    } finally {
      await Promise.all([silent.close(), live.close()]);
    }
  }, 30_000);

  it("two endpoints that answer nothing share the slots and leave room for a third, whose webhooks go meanwhile", async () => {
    const m = await seedTestMerchant();
    const ctx = await m.ctx();
    const [silentA, silentB, live] = await Promise.all([silentReceiver(), silentReceiver(), startReceiver()]);
    // Both silent endpoints want every succeeded event: their backlogs interleave, oldest first.
    await createEndpoint(ctx, { url: silentA.url, enabledEvents: ["payment.succeeded"] });
    await createEndpoint(ctx, { url: silentB.url, enabledEvents: ["payment.succeeded"] });
    await createEndpoint(ctx, { url: live.url, enabledEvents: ["payment.failed"] });
    try {
      await deliverBehindBacklog(m.merchant.id, 300, live, () => {
        // Each got its share of two at work, and together they left that much again.
        const share = endpointShare(DELIVERY_CONCURRENCY, 2);
        expect(silentA.received).toHaveLength(share);
        expect(silentB.received).toHaveLength(share);
        expect(DELIVERY_CONCURRENCY - 2 * share).toBeGreaterThanOrEqual(share);
      });
    } finally {
      await Promise.all([silentA.close(), silentB.close(), live.close()]);
    }
  }, 30_000);
});
