import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { getDb } from "@/db/client";
import { systemClock } from "@/server/clock";
import { providers } from "@/server/providers/registry";
import { recordEvents } from "@/server/services/events/record-event";
import { createEndpoint } from "@/server/services/webhooks/create-endpoint";
import { seedPayment, seedTestMerchant, type TestMerchant } from "@/server/testing/fixtures";
import { startReceiver, testPoster } from "@/server/testing/webhooks";
import * as dueWork from "./due-work";
import { LocalRunner, PASS_BUDGET_MS, PASS_SPACING_MS } from "./local-runner";

// The real claim, counted.
vi.mock("./due-work", async (real) => {
  const mod = await real<typeof import("./due-work")>();
  return { ...mod, claimDueDeliveries: vi.fn(mod.claimDueDeliveries) };
});
const claims = vi.mocked(dueWork.claimDueDeliveries);

const poster = testPoster();
afterAll(() => poster.close());

/** A merchant with one endpoint on a live receiver, and a way to commit n events at once. */
async function world() {
  const m: TestMerchant = await seedTestMerchant();
  const receiver = await startReceiver();
  const db = await getDb();
  await createEndpoint(await m.ctx(), { url: receiver.url, enabledEvents: ["*"] });
  const runner = new LocalRunner({ db, clock: systemClock, providers, webhooks: poster, merchantId: m.merchant.id });
  const commit = (n: number) =>
    db.transaction((tx) =>
      recordEvents(
        tx,
        Array.from({ length: n }, (_, i) => ({
          merchantId: m.merchant.id,
          livemode: false,
          type: "payment.succeeded" as const,
          objectId: `pay_${i}_${Math.random().toString(36).slice(2)}`,
          object: { i },
          at: new Date(),
        })),
      ),
    );
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
    // One pass per notification would be ~40; spaced passes are bounded by the time taken.
    expect(passes.mock.calls.length).toBeLessThanOrEqual(Math.ceil(elapsed / PASS_SPACING_MS) + 2);
    expect(passes.mock.calls.length).toBeLessThan(burst / 2);
    w.runner.stop();
  });

  it("an event recorded while a pass waits on slow work (a provider timing out) is delivered beside that pass, not after it", async () => {
    w.receiver.received.length = 0;
    // Something due, so that the pass runs a batch of work: held here as a provider's timeouts would hold it.
    await seedPayment(w.m, "awaiting_customer", { at: new Date(Date.now() - 60_000), expiresInMs: 1_000 });
    let release = () => {};
    const held = new Promise<void>((r) => (release = r));
    let holding = false;
    const slow = w.runner as unknown as { claimAndRun: (kind: string) => Promise<string[]> };
    const real = slow.claimAndRun;
    slow.claimAndRun = async () => {
      holding = true;
      await held;
      return [];
    };
    try {
      w.runner.start();
      await vi.waitFor(() => expect(holding).toBe(true));
      await w.commit(1);
      w.runner.notify();
      // Within the pass budget and a little: the pass itself is still held.
      await vi.waitFor(() => expect(w.receiver.received).toHaveLength(1), { timeout: PASS_BUDGET_MS + 2_000 });
    } finally {
      release();
      slow.claimAndRun = real;
      w.runner.stop();
      await w.runner.settled();
    }
  });
});
