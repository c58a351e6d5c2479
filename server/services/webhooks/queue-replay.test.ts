import { and, eq } from "drizzle-orm";
import { afterAll, describe, expect, it } from "vitest";
import { getDb } from "@/db/client";
import { webhookDeliveries } from "@/db/schema";
import { manualClock } from "@/server/clock";
import { DELIVERY_LEASE_MS, GIVE_UP_AFTER_MS } from "@/server/domain/webhooks";
import { lockUntilCommit } from "@/db/transaction";
import { claimDueDeliveries } from "@/server/jobs/due-work";
import { env } from "@/server/env";
import { LocalRunner } from "@/server/jobs/local-runner";
import { providers } from "@/server/providers/registry";
import { seedPayment, seedTestMerchant } from "@/server/testing/fixtures";
import { startReceiver, testPoster } from "@/server/testing/webhooks";
import { replayEvent } from "../events/replay-event";
import { replayEventWindow } from "../events/replay-event-window";
import { onJobSignal, type JobSignal } from "../job-signals";
import { transitionPayment } from "../payments/transition-payment";
import { createEndpoint } from "./create-endpoint";

const poster = testPoster();
const closers: (() => Promise<void>)[] = [];
afterAll(async () => {
  poster.close();
  await Promise.all(closers.map((c) => c()));
});

/** A merchant, a runner confined to it on a clock the test moves, a receiver that is down until told, and one failed first attempt. */
async function outage() {
  const m = await seedTestMerchant();
  const db = await getDb();
  const clock = manualClock("2026-05-04T08:00:00Z");
  let up = false;
  const r = await startReceiver(() => (up ? 200 : 503));
  closers.push(r.close);
  const runner = new LocalRunner({ db, clock, providers, webhooks: poster, merchantId: m.merchant.id });
  const run = async () => {
    await runner.tick();
    await runner.settled();
  };
  const ctx = () => m.ctx(false, clock);
  const endpoint = await createEndpoint(await ctx(), { url: r.url, enabledEvents: ["*"] });
  const p = await seedPayment(m, "awaiting_customer", { at: clock.now() });
  const { event } = await transitionPayment({ db, clock }, { paymentId: p.id, to: "succeeded" });
  await run();
  expect(r.received).toHaveLength(1);
  const deliveries = () => db.select().from(webhookDeliveries).where(and(eq(webhookDeliveries.eventId, event!.id), eq(webhookDeliveries.endpointId, endpoint.id)));
  return { m, db, clock, run, ctx, event: event!, received: r.received, deliveries, receiverUp: () => (up = true) };
}

describe("queueReplay", () => {
  it("tells the job driver which endpoint each queued delivery goes to (Inngest shares out attempts by it)", async () => {
    const w = await outage();
    const signals: JobSignal[] = [];
    onJobSignal((s) => signals.push(s));
    try {
      const { deliveries: queued } = await replayEvent(await w.ctx(), w.event.id);
      const [delivery] = await w.deliveries();
      expect(queued.map((d) => d.id)).toEqual([delivery!.id]);
      expect(signals).toEqual([{ type: "webhooks.queued", deliveries: [{ id: delivery!.id, endpointId: delivery!.endpointId }], at: w.clock.now() }]);
    } finally {
      onJobSignal(undefined);
    }
  });

  it("a replay after the delivery's 24 hours ran out while nothing ran sends the event, rather than leaving it to a retry that may no longer go out", async () => {
    const w = await outage();
    // The retry was due a minute after the first attempt; nothing ran for a day (the workers were
    // down), and the merchant replays once the receiver is back.
    w.clock.advance(GIVE_UP_AFTER_MS + 5 * 60_000);
    w.receiverUp();
    const { deliveries: queued, retries } = await replayEvent(await w.ctx(), w.event.id);
    expect(queued).toHaveLength(1);
    expect(retries).toBe(0);
    await w.run();

    expect(w.received).toHaveLength(2);
    const rows = await w.deliveries();
    expect(rows.filter((d) => d.status === "delivered").map((d) => d.id)).toEqual([queued[0]!.id]);
    expect(rows.filter((d) => d.status === "pending")).toEqual([]);
  });

  it("the same holds for a window's replay", async () => {
    const w = await outage();
    w.clock.advance(GIVE_UP_AFTER_MS + 5 * 60_000);
    w.receiverUp();
    const counted = await replayEventWindow(await w.ctx(), { createdGte: w.event.createdAt, onlyUndelivered: true });
    expect(counted).toMatchObject({ events: 1, deliveries: 1 });
    await w.run();

    expect(w.received).toHaveLength(2);
    expect((await w.deliveries()).map((d) => d.status).sort()).toEqual(["delivered", "failed"]);
  });

  it("a retry pending within its 24 hours is still brought forward, not doubled", async () => {
    const w = await outage();
    w.clock.advance(30_000);
    const [original] = await w.deliveries();
    w.clock.advance(GIVE_UP_AFTER_MS - 30 * 60_000);
    w.receiverUp();
    const { deliveries: queued, retries } = await replayEvent(await w.ctx(), w.event.id);
    expect(queued.map((d) => d.id)).toEqual([original!.id]);
    // The page says so: no new delivery, the pending retry goes now.
    expect(retries).toBe(1);
    await w.run();
    expect(w.received).toHaveLength(2);
    expect((await w.deliveries()).map((d) => [d.id, d.status])).toEqual([[original!.id, "delivered"]]);
  });

  it("replays pressed while the receiver is still down use up none of the retry schedule: a failed one goes back to the retry it brought forward", async () => {
    const w = await outage();
    const at = () => w.clock.now().getTime();
    // The 1-minute retry fails too: the next is 5 minutes after it.
    w.clock.advance(60_000);
    await w.run();
    const [afterTwo] = await w.deliveries();
    const scheduled = at() + 300_000;
    expect(afterTwo).toMatchObject({ attemptCount: 2, nextAttemptAt: new Date(scheduled) });

    for (const wait of [20_000, 15_000]) {
      w.clock.advance(wait);
      expect((await replayEvent(await w.ctx(), w.event.id)).deliveries.map((d) => d.id)).toEqual([afterTwo!.id]);
      await w.run();
      const [row] = await w.deliveries();
      // Sent now, failed, and back to the retry the schedule had made.
      expect(row).toMatchObject({ status: "pending", nextAttemptAt: new Date(scheduled), resumeAt: null });
    }
    expect(w.received).toHaveLength(4);
    const [replayed] = await w.deliveries();
    expect(replayed).toMatchObject({ attemptCount: 4, replayedAttempts: 2 });

    // The 5-minute retry goes out on time, fails, and the schedule's next step is the 30-minute one.
    w.clock.advance(scheduled - at());
    await w.run();
    const [row] = await w.deliveries();
    expect(w.received).toHaveLength(5);
    expect(row).toMatchObject({ status: "pending", attemptCount: 5, nextAttemptAt: new Date(scheduled + 1_800_000) });

    w.receiverUp();
    w.clock.advance(1_800_000);
    await w.run();
    expect((await w.deliveries()).map((d) => d.status)).toEqual(["delivered"]);
  });

  it("a replayed attempt that gets through is the delivery's last", async () => {
    const w = await outage();
    w.clock.advance(60_000);
    await w.run();
    w.receiverUp();
    w.clock.advance(10_000);
    await replayEvent(await w.ctx(), w.event.id);
    await w.run();
    const [row] = await w.deliveries();
    expect(row).toMatchObject({ status: "delivered", nextAttemptAt: null, resumeAt: null, attemptCount: 3, replayedAttempts: 1 });
    w.clock.advance(3_600_000);
    await w.run();
    expect(w.received).toHaveLength(3);
  });

  it("leaves alone a delivery just claimed by a worker whose clock runs a few seconds ahead (it is being sent now)", async () => {
    const w = await outage();
    const [original] = await w.deliveries();
    // The retry falls due and a worker on another instance, its clock 3 s ahead, claims it.
    w.clock.advance(original!.nextAttemptAt!.getTime() - w.clock.now().getTime());
    const ahead = new Date(w.clock.now().getTime() + 3_000);
    expect(await claimDueDeliveries(w.db, ahead, 10, { merchantId: w.m.merchant.id })).toEqual([original!.id]);

    expect((await replayEvent(await w.ctx(), w.event.id)).deliveries.map((d) => d.id)).toEqual([original!.id]);
    const [row] = await w.deliveries();
    expect(row!.nextAttemptAt).toEqual(new Date(ahead.getTime() + DELIVERY_LEASE_MS));
    // Brought forward, it would be claimed again at once and sent a second time while the first send runs.
    expect(await claimDueDeliveries(w.db, w.clock.now(), 10, { merchantId: w.m.merchant.id })).toEqual([]);
  });

  // Two sessions: the replay must wait on another's lock, which one embedded session cannot show.
  it.runIf(env().DATABASE_URL)("a replay that waited for another leaves alone a delivery a worker claimed meanwhile (it would be sent twice at once)", async () => {
    const w = await outage();
    const [original] = await w.deliveries();
    // As after a few failures: the next retry is hours away.
    await w.db.update(webhookDeliveries).set({ nextAttemptAt: new Date(w.clock.now().getTime() + 2 * 3_600_000) }).where(eq(webhookDeliveries.id, original!.id));

    // Another replay of the merchant holds the turn; it brings the retry forward and a worker claims it.
    let release!: () => void;
    let holding!: () => void;
    const held = new Promise<void>((resolve) => (holding = resolve));
    const first = w.db.transaction(async (tx) => {
      await lockUntilCommit(tx, `replay:${w.m.merchant.id}:false`);
      holding();
      await new Promise<void>((resolve) => (release = resolve));
      await tx.update(webhookDeliveries).set({ nextAttemptAt: w.clock.now() }).where(eq(webhookDeliveries.id, original!.id));
    });
    await held;
    const second = replayEvent(await w.ctx(), w.event.id);
    await new Promise((resolve) => setTimeout(resolve, 200));
    w.clock.advance(5_000);
    release();
    await first;
    expect(await claimDueDeliveries(w.db, w.clock.now(), 10, { merchantId: w.m.merchant.id })).toEqual([original!.id]);
    const leasedUntil = new Date(w.clock.now().getTime() + DELIVERY_LEASE_MS);

    expect((await second).deliveries.map((d) => d.id)).toEqual([original!.id]);
    const [row] = await w.deliveries();
    expect(row!.nextAttemptAt).toEqual(leasedUntil);
  });
});
