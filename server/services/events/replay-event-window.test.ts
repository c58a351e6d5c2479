import { count, countDistinct, eq } from "drizzle-orm";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { getDb } from "@/db/client";
import { eventReplays, webhookDeliveries } from "@/db/schema";
import { lockUntilCommit } from "@/db/transaction";
import { manualClock } from "@/server/clock";
import type { ReplayProgress } from "@/server/domain/events";
import { REPLAY_LEASE_MS } from "@/server/domain/webhooks";
import { env } from "@/server/env";
import { claimStalledReplays, nextDueAt } from "@/server/jobs/due-work";
import { LocalRunner } from "@/server/jobs/local-runner";
import { providers } from "@/server/providers/registry";
import { onJobSignal, type JobSignal } from "@/server/services/job-signals";
import { api } from "@/server/testing/api";
import { seedEvents, seedTestMerchant } from "@/server/testing/fixtures";
import { startReceiver, testPoster } from "@/server/testing/webhooks";
import { createEndpoint } from "../webhooks/create-endpoint";
import { replayLock } from "../webhooks/queue-replay";
import { updateEndpoint } from "../webhooks/update-endpoint";
import { replayEventWindow, resumeReplays, type ReplayWindowInput } from "./replay-event-window";

const poster = testPoster();
const closers: (() => Promise<void>)[] = [];
afterAll(async () => {
  poster.close();
  await Promise.all(closers.map((c) => c()));
});

/** Stands for the process dying: thrown from the progress report, after that many batches committed. */
class Died extends Error {}
const dieAfter = (batches: number) => {
  let reports = 0;
  return (p: ReplayProgress) => {
    // The first report comes before any batch.
    if (reports++ === batches) throw new Died(`died with ${p.events} events queued`);
  };
};

/** A merchant with `n` events ending at its clock's now and two endpoints that want them; the window is theirs. */
async function world(n: number, now: Date | string = "2026-06-01T10:00:00Z") {
  const m = await seedTestMerchant();
  const db = await getDb();
  const clock = manualClock(now);
  const ctx = await m.ctx(false, clock);
  const r = await startReceiver(() => 200);
  closers.push(r.close);
  const endpoints = [await createEndpoint(ctx, { url: r.url, enabledEvents: ["*"] }), await createEndpoint(ctx, { url: r.url, enabledEvents: ["payment.succeeded"] })];
  const from = await seedEvents(m, n, clock.now());
  const window = { createdGte: from, createdLt: clock.now() };
  const deliveries = async () => {
    const [row] = await db
      .select({ all: count(), pairs: countDistinct(webhookDeliveries.eventId) })
      .from(webhookDeliveries)
      .where(eq(webhookDeliveries.merchantId, m.merchant.id));
    return row!;
  };
  const replays = () => db.select().from(eventReplays).where(eq(eventReplays.merchantId, m.merchant.id));
  const claim = () => claimStalledReplays(db, clock.now(), 10, m.merchant.id);
  const deps = { db, clock, providers };
  return { m, db, clock, ctx, endpoints, window, deliveries, replays, claim, deps };
}

type World = Awaited<ReturnType<typeof world>>;

/**
 * A replay cut off after its first batch, its lease run out and claimed by a runner whose next
 * batch waits for the merchant's replay turn (held here), holding the replay's row; then the
 * request retried with its key (`opts`), which waits on that row. The turn is let go, and both are
 * returned under way: the retry finds the cursor moved by the runner.
 */
async function retryBehindRunner(w: World, input: ReplayWindowInput, opts: Parameters<typeof replayEventWindow>[2]) {
  await expect(replayEventWindow(w.ctx, input, { report: dieAfter(1) })).rejects.toThrow(Died);
  w.clock.advance(REPLAY_LEASE_MS);
  const claimed = await w.claim();
  let release!: () => void;
  let holding!: () => void;
  const held = new Promise<void>((resolve) => (holding = resolve));
  const turn = w.db.transaction(async (tx) => {
    await lockUntilCommit(tx, replayLock(w.m.merchant.id, false));
    holding();
    await new Promise<void>((resolve) => (release = resolve));
  });
  await held;
  const runner = resumeReplays(w.deps, claimed);
  await new Promise((resolve) => setTimeout(resolve, 200));
  const retry = replayEventWindow(w.ctx, input, opts);
  await new Promise((resolve) => setTimeout(resolve, 200));
  release();
  await turn;
  return { runner, retry };
}

/** The hand-backs the job driver is told of from now on (until the test's end). */
function handBacksHeard(): JobSignal[] {
  const heard: JobSignal[] = [];
  onJobSignal((signal) => {
    if (signal.type === "replay.handed-back") heard.push(signal);
  });
  return heard;
}

describe("a window replay cut off half-way", () => {
  it("is carried on by a job runner from where it stopped, once its lease runs out: each event queued once to each endpoint", async () => {
    const w = await world(1_200);
    await expect(replayEventWindow(w.ctx, w.window, { report: dieAfter(1) })).rejects.toThrow(Died);
    const [stopped] = await w.replays();
    expect(stopped).toMatchObject({ status: "running", events: 500, deliveries: 1_000 });
    expect(await w.deliveries()).toEqual({ all: 1_000, pairs: 500 });

    // While its lease holds, the replay is its runner's; a pass is due when it runs out.
    expect(await w.claim()).toEqual([]);
    expect((await nextDueAt(w.db, w.clock.now())).kinds.replays).toEqual(stopped!.leaseUntil);
    w.clock.advance(REPLAY_LEASE_MS);
    const runner = new LocalRunner({ ...w.deps, webhooks: poster, merchantId: w.m.merchant.id });
    await runner.tick();
    await runner.settled();

    const [done] = await w.replays();
    expect(done).toMatchObject({ status: "done", events: 1_200, deliveries: 2_400, leaseUntil: null, finishedAt: w.clock.now() });
    expect(await w.deliveries()).toEqual({ all: 2_400, pairs: 1_200 });
    expect(await w.claim()).toEqual([]);
  });

  it("a retry with the request's Idempotency-Key answers the replay it started, carried on rather than started again", async () => {
    const w = await world(1_100);
    const input = { ...w.window, idempotencyKey: "replay-after-outage" };
    await expect(replayEventWindow(w.ctx, input, { report: dieAfter(2) })).rejects.toThrow(Died);
    expect(await w.deliveries()).toEqual({ all: 2_000, pairs: 1_000 });

    const progress: ReplayProgress[] = [];
    const answer = await replayEventWindow(w.ctx, input, { report: (p) => progress.push(p) });
    expect(answer).toMatchObject({ status: "done", events: 1_100, deliveries: 2_200, createdLt: w.window.createdLt });
    expect(progress).toEqual([
      { events: 1_000, deliveries: 2_000 },
      { events: 1_100, deliveries: 2_200 },
    ]);
    expect(await w.deliveries()).toEqual({ all: 2_200, pairs: 1_100 });
    // Finished, the same key answers the same totals and queues nothing.
    expect(await replayEventWindow(w.ctx, input)).toEqual(answer);
    expect(await w.replays()).toHaveLength(1);
    expect(await w.deliveries()).toEqual({ all: 2_200, pairs: 1_100 });
    // Another key is another replay: its deliveries are new ones, as any replay's.
    expect(await replayEventWindow(w.ctx, { ...input, idempotencyKey: "another" })).toMatchObject({ events: 1_100, deliveries: 2_200 });
  });

  it("two runners carrying it on at once queue each batch once: the one that finds the cursor moved stops", async () => {
    const w = await world(2_100);
    await expect(replayEventWindow(w.ctx, w.window, { report: dieAfter(1) })).rejects.toThrow(Died);
    w.clock.advance(REPLAY_LEASE_MS);
    const [claimed] = await w.claim();
    // A second instance holding the same claim (its lease seemed to run out too).
    await Promise.all([resumeReplays(w.deps, [claimed!]), resumeReplays(w.deps, [claimed!])]);
    expect(await w.deliveries()).toEqual({ all: 4_200, pairs: 2_100 });
    expect((await w.replays())[0]).toMatchObject({ status: "done", events: 2_100, deliveries: 4_200 });
  });

  it("one whose named endpoint was disabled meanwhile stops with that refusal, which its retry answers too", async () => {
    const w = await world(700);
    const input = { ...w.window, endpointId: w.endpoints[0]!.id, idempotencyKey: "named" };
    await expect(replayEventWindow(w.ctx, input, { report: dieAfter(1) })).rejects.toThrow(Died);
    await updateEndpoint(w.ctx, w.endpoints[0]!.id, { disabled: true });
    w.clock.advance(REPLAY_LEASE_MS);
    expect(await resumeReplays(w.deps, await w.claim())).toBe(0);
    const [stopped] = await w.replays();
    expect(stopped).toMatchObject({ status: "stopped", events: 500, leaseUntil: null, error: { code: "parameter_invalid", param: "endpoint" } });
    w.clock.advance(REPLAY_LEASE_MS);
    expect(await w.claim()).toEqual([]);
    await updateEndpoint(w.ctx, w.endpoints[0]!.id, { disabled: false });
    await expect(replayEventWindow(w.ctx, input)).rejects.toMatchObject({ code: "parameter_invalid", param: "endpoint" });
  });

  it("a runner given a budget hands the rest back, due at once, for the next to carry on", async () => {
    const w = await world(1_600);
    await expect(replayEventWindow(w.ctx, w.window, { report: dieAfter(1) })).rejects.toThrow(Died);
    w.clock.advance(REPLAY_LEASE_MS);
    expect(await resumeReplays(w.deps, await w.claim(), { budgetMs: 0 })).toBe(0);
    const [paused] = await w.replays();
    expect(paused).toMatchObject({ status: "running", events: 1_000, leaseUntil: w.clock.now() });
    expect(await resumeReplays(w.deps, await w.claim())).toBe(1);
    expect(await w.deliveries()).toEqual({ all: 3_200, pairs: 1_600 });
  });

  it("POST /v1/events/replay with the Idempotency-Key of a request cut off half-way answers that request's replay", async () => {
    // At the real now: the route runs on the system clock, and keys are kept 24 h.
    const w = await world(800, new Date());
    const key = "window-after-outage";
    await expect(replayEventWindow(w.ctx, { ...w.window, idempotencyKey: key }, { report: dieAfter(1) })).rejects.toThrow(Died);
    const body = { created_gte: w.window.createdGte.toISOString(), created_lt: w.window.createdLt.toISOString() };
    const retry = await api("POST", "/v1/events/replay", { key: w.m.keys.test, idempotencyKey: key, body });
    expect(retry.status).toBe(200);
    expect(retry.body).toMatchObject({ object: "event_replay", events: 800, deliveries: 1_600 });
    expect(await w.deliveries()).toEqual({ all: 1_600, pairs: 800 });
    expect(await w.replays()).toHaveLength(1);
  });

  // Two sessions: the retry must wait on the runner's lock, which one embedded session cannot show.
  it.runIf(env().DATABASE_URL)("a retry that finds a runner carrying it on follows it to the end and answers the totals", async () => {
    const w = await world(1_600);
    const progress: ReplayProgress[] = [];
    const { runner, retry } = await retryBehindRunner(w, { ...w.window, idempotencyKey: "followed" }, { report: (p) => progress.push(p) });

    expect(await runner).toBe(1);
    expect(await retry).toMatchObject({ status: "done", events: 1_600, deliveries: 3_200, createdLt: w.window.createdLt });
    expect(progress.at(-1)).toEqual({ events: 1_600, deliveries: 3_200 });
    expect(await w.deliveries()).toEqual({ all: 3_200, pairs: 1_600 });
  });
});

describe("a window longer than the answer's time", () => {
  afterEach(() => onJobSignal(undefined));

  it("is answered running, handed back with the job driver told, and a runner carries it to its end", async () => {
    const w = await world(1_200);
    const heard = handBacksHeard();
    const answer = await replayEventWindow(w.ctx, w.window, { answerWithinMs: 0 });
    // One batch, then the rest is handed back: its lease ended at once, so a runner takes it now.
    expect(answer).toMatchObject({ status: "running", events: 500, deliveries: 1_000, leaseUntil: w.clock.now() });
    expect(heard).toEqual([{ type: "replay.handed-back", replayId: answer.id, afterEventId: answer.afterEventId }]);
    expect((await nextDueAt(w.db, w.clock.now())).kinds.replays).toEqual(w.clock.now());

    const runner = new LocalRunner({ ...w.deps, webhooks: poster, merchantId: w.m.merchant.id });
    await runner.tick();
    await runner.settled();
    expect((await w.replays())[0]).toMatchObject({ id: answer.id, status: "done", events: 1_200, deliveries: 2_400 });
    expect(await w.deliveries()).toEqual({ all: 2_400, pairs: 1_200 });
  });

  it("one queued within the time is answered done, and nothing is handed back", async () => {
    const w = await world(300);
    const heard = handBacksHeard();
    expect(await replayEventWindow(w.ctx, w.window, { answerWithinMs: 0 })).toMatchObject({ status: "done", events: 300, leaseUntil: null });
    expect(heard).toEqual([]);
  });

  // Two sessions, as above: the request waits on the runner's lock, then finds the cursor moved.
  it.runIf(env().DATABASE_URL)("a request that finds another runner carrying its replay on answers it as it stands once its time is up", async () => {
    const w = await world(12_000);
    const { runner, retry } = await retryBehindRunner(w, { ...w.window, idempotencyKey: "followed-briefly" }, { answerWithinMs: 0 });

    // The runner has 22 batches to go: the request does not wait for them, nor take the replay over.
    const answered = await retry;
    expect(answered).toMatchObject({ status: "running" });
    expect(answered.events).toBeGreaterThanOrEqual(1_000);
    expect(answered.events).toBeLessThan(12_000);
    expect(await runner).toBe(1);
    expect(await w.deliveries()).toEqual({ all: 24_000, pairs: 12_000 });
  });
});

describe("a dry run", () => {
  it("keeps nothing: no replay row, no delivery", async () => {
    const w = await world(600);
    expect(await replayEventWindow(w.ctx, { ...w.window, dryRun: true })).toMatchObject({ events: 600, deliveries: 1_200 });
    expect(await w.replays()).toEqual([]);
    expect(await w.deliveries()).toEqual({ all: 0, pairs: 0 });
  });
});

