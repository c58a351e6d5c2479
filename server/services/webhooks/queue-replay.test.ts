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
import { fanOutEvents } from "./fan-out-events";
import { queueReplay, replayLock } from "./queue-replay";
import { deleteEndpoint } from "./delete-endpoint";
import { updateEndpoint } from "./update-endpoint";
import { newId } from "@/server/domain/ids";

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

  describe("and the relay of the same event", () => {
    /** An event committed but not relayed yet (its outbox row waits), to two endpoints. */
    async function unrelayed() {
      const m = await seedTestMerchant();
      const db = await getDb();
      const clock = manualClock("2026-05-04T09:00:00Z");
      const ctx = await m.ctx(false, clock);
      const [r1, r2] = [await startReceiver(() => 200), await startReceiver(() => 200)];
      closers.push(r1.close, r2.close);
      const one = await createEndpoint(ctx, { url: r1.url, enabledEvents: ["*"] });
      const two = await createEndpoint(ctx, { url: r2.url, enabledEvents: ["*"] });
      const p = await seedPayment(m, "awaiting_customer", { at: clock.now() });
      const { event } = await transitionPayment({ db, clock }, { paymentId: p.id, to: "succeeded" });
      const relay = () => fanOutEvents({ db, clock }, { merchantId: m.merchant.id });
      const to = async (endpointId: string) =>
        db.select({ id: webhookDeliveries.id, reason: webhookDeliveries.reason }).from(webhookDeliveries).where(and(eq(webhookDeliveries.eventId, event!.id), eq(webhookDeliveries.endpointId, endpointId)));
      return { m, db, ctx, one, two, event: event!, relay, to };
    }

    it("a replay made before the relay (the relay was behind) is the endpoint's one delivery; the relay adds the others'", async () => {
      const w = await unrelayed();
      await replayEvent(w.ctx, w.event.id, w.one.id);
      const relayed = await w.relay();
      expect(relayed.deliveries.map((d) => d.endpointId)).toEqual([w.two.id]);
      expect(await w.to(w.one.id)).toEqual([expect.objectContaining({ reason: "replay" })]);
      expect(await w.to(w.two.id)).toEqual([expect.objectContaining({ reason: "event" })]);
    });

    it("a window replayed before the relay is sent once to each endpoint", async () => {
      const w = await unrelayed();
      const at = w.event.createdAt.getTime();
      expect(await replayEventWindow(w.ctx, { createdGte: new Date(at - 1_000), createdLt: new Date(at + 1_000) })).toMatchObject({ events: 1, deliveries: 2 });
      expect((await w.relay()).deliveries).toEqual([]);
      expect(await w.to(w.one.id)).toHaveLength(1);
      expect(await w.to(w.two.id)).toHaveLength(1);
    });

    it("a replay that read its endpoints before one was deleted or disabled queues nothing to it, and refuses it by name", async () => {
      const w = await unrelayed();
      await w.relay();
      const pairs = [
        { eventId: w.event.id, endpointId: w.one.id },
        { eventId: w.event.id, endpointId: w.two.id },
      ];
      // As replayTargets read them, then the endpoints changed before the replay's turn.
      await deleteEndpoint(w.ctx, w.one.id);
      await updateEndpoint(w.ctx, w.two.id, { disabled: true });
      await expect(queueReplay(w.ctx, pairs.slice(0, 1), { named: w.one.id })).rejects.toMatchObject({ code: "resource_missing", param: "endpoint" });
      await expect(queueReplay(w.ctx, pairs.slice(1), { named: w.two.id })).rejects.toMatchObject({ code: "parameter_invalid", param: "endpoint" });
      expect(await queueReplay(w.ctx, pairs)).toEqual({ ids: [], retries: 0 });
      expect((await w.to(w.one.id)).map((d) => d.reason)).toEqual(["event"]);
      expect((await w.to(w.two.id)).map((d) => d.reason)).toEqual(["event"]);
    });

    it("only what is not delivered, read in the replay's turn: a delivery that got through meanwhile is not sent again", async () => {
      const w = await unrelayed();
      await w.relay();
      const [first] = await w.to(w.one.id);
      // Read as not delivered by the window; recorded as delivered before the replay's turn.
      await w.db.update(webhookDeliveries).set({ status: "delivered" }).where(eq(webhookDeliveries.id, first!.id));
      const pairs = [
        { eventId: w.event.id, endpointId: w.one.id },
        { eventId: w.event.id, endpointId: w.two.id },
      ];
      const queued = await queueReplay(w.ctx, pairs, { skipDelivered: true });
      expect(queued.ids).toEqual([(await w.to(w.two.id))[0]!.id]);
      expect(await w.to(w.one.id)).toHaveLength(1);
    });

    // Two sessions: the relay must wait on the replay's lock, which one embedded session cannot show.
    it.runIf(env().DATABASE_URL)("a relay that runs while a replay of the event is being queued waits for it, then adds no second delivery", async () => {
      const w = await unrelayed();
      let release!: () => void;
      let holding!: () => void;
      const held = new Promise<void>((resolve) => (holding = resolve));
      const replay = w.db.transaction(async (tx) => {
        // queueReplay's turn, with the delivery it makes not yet committed.
        await lockUntilCommit(tx, replayLock(w.m.merchant.id, false));
        await tx.insert(webhookDeliveries).values({
          id: newId("webhookDelivery"),
          merchantId: w.m.merchant.id,
          livemode: false,
          eventId: w.event.id,
          endpointId: w.one.id,
          reason: "replay",
          nextAttemptAt: new Date(),
          createdAt: new Date(),
        });
        holding();
        await new Promise<void>((resolve) => (release = resolve));
      });
      await held;
      const relayed = w.relay();
      await new Promise((resolve) => setTimeout(resolve, 200));
      release();
      await replay;
      expect((await relayed).deliveries.map((d) => d.endpointId)).toEqual([w.two.id]);
      expect(await w.to(w.one.id)).toEqual([expect.objectContaining({ reason: "replay" })]);
    });
  });
});
