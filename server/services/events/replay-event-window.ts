import { and, asc, desc, eq, gt, gte, inArray, isNull } from "drizzle-orm";
import { eventReplays, events, webhookDeliveries, type CountedReplay, type EventReplay } from "@/db/schema";
import { inTransaction } from "@/db/transaction";
import type { EventType, ReplayProgress } from "@/server/domain/events";
import { invalidParam, isServiceError, ServiceError } from "@/server/domain/errors";
import { IDEMPOTENCY_TTL_MS } from "@/server/domain/idempotency";
import { newId } from "@/server/domain/ids";
import { REPLAY_LEASE_MS } from "@/server/domain/webhooks";
import type { CustomerContext, ServiceContext } from "@/server/context";
import { log } from "@/server/log";
import { signalJobs } from "@/server/services/job-signals";
import { actForMerchant } from "../merchants/act-for-merchant";
import { queueReplay, replayPairs, replayTargets } from "../webhooks/queue-replay";
import { eventWindow } from "./list-events";

export type ReplayWindowInput = {
  createdGte: Date;
  createdLt?: Date;
  types?: EventType[];
  endpointId?: string;
  /** Skip an event for an endpoint that already has a delivered delivery of it. */
  onlyUndelivered?: boolean;
  dryRun?: boolean;
  /** The request's Idempotency-Key: a retry with it (after a crash) picks up the replay it started. */
  idempotencyKey?: string | null;
};

type Report = (progress: ReplayProgress) => void;

const BATCH = 500;
/** How often a request whose replay another runner carries on looks at its progress. */
const WATCH_MS = 250;

/**
 * Replays every event of a window (the after-an-outage case), oldest first, in batches of 500 so
 * a day of events neither holds one long transaction nor builds in memory. A dry run counts the
 * same way and writes nothing (its answer has no id). A replay is kept as a row (`event_replays`)
 * while it runs, and each batch commits with the row's cursor moved past it: a request cut off
 * half-way (a crash) leaves a replay that a job runner carries on from there once its lease runs
 * out, and a retry with the same Idempotency-Key answers that replay rather than starting another.
 * With `answerWithinMs`, a replay still queueing by then is handed to the job runner at once (its
 * lease ended, the runner told) and answered `running`. A replay that stopped (its endpoint
 * disabled or deleted) throws why.
 * `report` hears how far it has come: once its checks are passed, then after each batch.
 */
export async function replayEventWindow(
  ctx: ServiceContext,
  input: ReplayWindowInput,
  { report = () => {}, answerWithinMs }: { report?: Report; answerWithinMs?: number } = {},
): Promise<EventReplay | CountedReplay> {
  const targets = await replayTargets(ctx, input.endpointId);
  // Without an end, the window ends now; the answer says when, so that a count can be confirmed as counted.
  const createdLt = input.createdLt ?? ctx.clock.now();
  // A start in the future (a mistyped year) would count nothing and say nothing of why.
  if (input.createdLt === undefined && input.createdGte >= createdLt)
    throw invalidParam("created_gte", "created_gte is in the future: without created_lt the window ends now, so it would hold no event.");
  if (input.dryRun) return counted(ctx, { ...input, createdLt }, await countWindow(ctx, { ...input, createdLt }, targets, report));
  const replay = (input.idempotencyKey && (await replayOfKey(ctx, input.idempotencyKey))) || (await startReplay(ctx, { ...input, createdLt }));
  report({ events: replay.events, deliveries: replay.deliveries });
  const left = replay.status === "running" ? await carryOn(ctx, replay, report, { targets, deadline: deadlineOf(answerWithinMs) }) : replay;
  if (left.status === "stopped" && left.error) throw new ServiceError(left.error.code as ServiceError["code"], left.error.message, left.error.param);
  return left;
}

/** A dry run's count, as the replay it would have started. */
function counted(ctx: ServiceContext, input: ReplayWindowInput & { createdLt: Date }, progress: ReplayProgress): CountedReplay {
  const now = ctx.clock.now();
  return {
    ...replayRow(ctx, input, now),
    id: null,
    ...progress,
    afterEventId: null,
    status: "done",
    error: null,
    leaseUntil: null,
    finishedAt: now,
  };
}

/** The columns a replay starts with. */
function replayRow(ctx: ServiceContext, input: ReplayWindowInput & { createdLt: Date }, now: Date) {
  return {
    merchantId: ctx.merchant.id,
    livemode: ctx.livemode,
    createdGte: input.createdGte,
    createdLt: input.createdLt,
    types: input.types ?? null,
    endpointId: input.endpointId ?? null,
    onlyUndelivered: input.onlyUndelivered ?? false,
    idempotencyKey: input.idempotencyKey ?? null,
    createdAt: now,
  };
}

/** What a dry run would queue, batch by batch, writing nothing. */
async function countWindow(
  ctx: ServiceContext,
  input: ReplayWindowInput & { createdLt: Date },
  targets: Awaited<ReturnType<typeof replayTargets>>,
  report: Report,
): Promise<ReplayProgress> {
  const progress = { events: 0, deliveries: 0 };
  report({ ...progress });
  for (let after: string | null = null; ; ) {
    const batch = await nextBatch(ctx, input, after);
    if (batch.length === 0) break;
    after = batch[batch.length - 1]!.id;
    let pairs = replayPairs(targets, batch, "window");
    if (input.onlyUndelivered && pairs.length) {
      const done = await ctx.db
        .select({ eventId: webhookDeliveries.eventId, endpointId: webhookDeliveries.endpointId })
        .from(webhookDeliveries)
        .where(and(inArray(webhookDeliveries.eventId, batch.map((e) => e.id)), eq(webhookDeliveries.status, "delivered")));
      const delivered = new Set(done.map((d) => `${d.eventId} ${d.endpointId}`));
      pairs = pairs.filter((p) => !delivered.has(`${p.eventId} ${p.endpointId}`));
    }
    progress.events += batch.length;
    progress.deliveries += pairs.length;
    report({ ...progress });
    if (batch.length < BATCH) break;
  }
  return progress;
}

/** The window's next events after the cursor, oldest first. */
function nextBatch(ctx: ServiceContext, w: { createdGte: Date; createdLt: Date; types?: EventType[] | null }, after: string | null) {
  const where = eventWindow(ctx, { types: w.types ?? undefined, createdGte: w.createdGte, createdLt: w.createdLt });
  return ctx.db
    .select({ id: events.id, type: events.type, objectId: events.objectId })
    .from(events)
    .where(after ? and(where, gt(events.id, after)) : where)
    .orderBy(asc(events.merchantId), asc(events.livemode), asc(events.id))
    .limit(BATCH);
}

/** The replay this Idempotency-Key started, while its key is kept (a key used again later starts a replay of its own). */
async function replayOfKey(ctx: ServiceContext, key: string): Promise<EventReplay | undefined> {
  const r = eventReplays;
  const [row] = await ctx.db
    .select()
    .from(r)
    .where(and(eq(r.merchantId, ctx.merchant.id), eq(r.livemode, ctx.livemode), eq(r.idempotencyKey, key), gte(r.createdAt, new Date(ctx.clock.now().getTime() - IDEMPOTENCY_TTL_MS))))
    .orderBy(desc(r.createdAt))
    .limit(1);
  return row;
}

async function startReplay(ctx: ServiceContext, input: ReplayWindowInput & { createdLt: Date }): Promise<EventReplay> {
  const now = ctx.clock.now();
  const [row] = await ctx.db
    .insert(eventReplays)
    .values({ ...replayRow(ctx, input, now), id: newId("eventReplay", now), leaseUntil: new Date(now.getTime() + REPLAY_LEASE_MS) })
    .returning();
  return row!;
}

type CarryOptions = {
  targets?: Awaited<ReturnType<typeof replayTargets>>;
  /**
   * When (`performance.now()`) to stop: the rest is handed back (its lease ended at once, the job
   * driver told) to whoever looks next; a replay watched is returned as it stands.
   */
  deadline?: number;
  /** Someone else carries it on: return at once rather than watch it to its end. */
  leaveToOthers?: boolean;
};

const deadlineOf = (budgetMs: number | undefined) => (budgetMs === undefined ? undefined : performance.now() + budgetMs);
const passed = (deadline: number | undefined) => deadline !== undefined && performance.now() >= deadline;

/**
 * Queues the rest of a running replay, batch after batch from its cursor. Each batch is one
 * transaction: it locks the row, checks that the cursor is still where this runner left it (another
 * may have taken the replay over when this one seemed dead), queues the batch's deliveries and
 * moves the cursor, counts and lease. A runner that finds the cursor moved stops, and (unless
 * `leaveToOthers`) watches the replay to its end or its deadline. A refusal (the endpoint named
 * was disabled or deleted) stops the replay with that error; any other failure leaves it running,
 * to be carried on when its lease runs out. Returns the row as the last batch left it.
 */
async function carryOn(ctx: ServiceContext, start: EventReplay, report: Report, opts: CarryOptions = {}): Promise<EventReplay> {
  const targets = opts.targets ?? (await orStop(ctx, start, () => replayTargets(ctx, start.endpointId ?? undefined)));
  let replay = start;
  for (;;) {
    const batch = await nextBatch(ctx, replay, replay.afterEventId);
    const last = batch.length < BATCH;
    const next = await orStop(ctx, replay, () =>
      inTransaction(ctx.db, async (tx) => {
        const [held] = await tx.select().from(eventReplays).where(eq(eventReplays.id, replay.id)).for("update");
        if (!held || held.status !== "running" || held.afterEventId !== replay.afterEventId) return null;
        const pairs = replayPairs(targets, batch, "window");
        const queued = await queueReplay({ ...ctx, db: tx }, pairs, { named: replay.endpointId ?? undefined, skipDelivered: replay.onlyUndelivered });
        const now = ctx.clock.now();
        const [moved] = await tx
          .update(eventReplays)
          .set({
            afterEventId: batch.length ? batch[batch.length - 1]!.id : held.afterEventId,
            events: held.events + batch.length,
            deliveries: held.deliveries + queued.ids.length,
            status: last ? "done" : "running",
            leaseUntil: last ? null : new Date(now.getTime() + REPLAY_LEASE_MS),
            finishedAt: last ? now : null,
          })
          .where(eq(eventReplays.id, replay.id))
          .returning();
        return moved!;
      }),
    );
    if (!next) return opts.leaveToOthers ? replay : watch(ctx, replay.id, report, opts.deadline);
    replay = next;
    report({ events: replay.events, deliveries: replay.deliveries });
    if (last) return replay;
    if (passed(opts.deadline)) return handBack(ctx, replay);
  }
}

/** The replay as this runner last left it: still running, its cursor unmoved by another. */
const stillAsLeft = (replay: EventReplay) =>
  and(
    eq(eventReplays.id, replay.id),
    eq(eventReplays.status, "running"),
    replay.afterEventId === null ? isNull(eventReplays.afterEventId) : eq(eventReplays.afterEventId, replay.afterEventId),
  );

/** Runs `work`; a refusal (the endpoint named was disabled or deleted) stops the replay, keeping why, if this runner still holds it. */
async function orStop<T>(ctx: ServiceContext, replay: EventReplay, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (e) {
    if (isServiceError(e)) {
      const error = { code: e.code, message: e.message, ...(e.param ? { param: e.param } : {}) };
      await ctx.db.update(eventReplays).set({ status: "stopped", error, leaseUntil: null, finishedAt: ctx.clock.now() }).where(stillAsLeft(replay));
    }
    throw e;
  }
}

/**
 * Ends this runner's lease at once and tells the job driver, so that a runner carries the replay on
 * now rather than when the lease would have run out. Returns the replay as handed back.
 */
async function handBack(ctx: ServiceContext, replay: EventReplay): Promise<EventReplay> {
  const [left] = await ctx.db.update(eventReplays).set({ leaseUntil: ctx.clock.now() }).where(stillAsLeft(replay)).returning();
  if (left) signalJobs({ type: "replay.handed-back", replayId: left.id, afterEventId: left.afterEventId });
  return left ?? replay;
}

/**
 * Follows a replay another runner carries on, reporting its progress, until it ends or the
 * deadline passes (then returned as it stands); should that runner die too (its lease runs out),
 * this one carries it on.
 */
async function watch(ctx: ServiceContext, id: string, report: Report, deadline: number | undefined): Promise<EventReplay> {
  for (;;) {
    await new Promise((resolve) => setTimeout(resolve, WATCH_MS));
    const [replay] = await ctx.db.select().from(eventReplays).where(eq(eventReplays.id, id));
    if (!replay) throw new Error(`replay ${id} vanished`);
    report({ events: replay.events, deliveries: replay.deliveries });
    if (replay.status !== "running") return replay;
    if (replay.leaseUntil && replay.leaseUntil <= ctx.clock.now()) return carryOn(ctx, replay, report, { deadline });
    if (passed(deadline)) return replay;
  }
}

/**
 * Carries on replays a job runner claimed because their lease ran out (the process running them
 * died), side by side, each in its merchant's environment, from its cursor. A replay that cannot go on is
 * stopped with its error (logged here); any other failure is logged and leaves it due again when its
 * lease ends. Returns how many finished.
 */
export async function resumeReplays(deps: CustomerContext, claimed: EventReplay[], opts: { budgetMs?: number } = {}): Promise<number> {
  const ends = await Promise.all(
    claimed.map(async (replay) => {
      try {
        const ctx = await actForMerchant(deps, replay, { type: "system", job: "resume-replay" });
        log.info("carrying on a window replay whose runner stopped", { replay: replay.id, events: replay.events });
        return (await carryOn(ctx, replay, () => {}, { deadline: deadlineOf(opts.budgetMs), leaveToOthers: true })).status === "done";
      } catch (e) {
        if (isServiceError(e)) log.warn("a window replay could not go on and was stopped", { replay: replay.id, code: e.code, message: e.message });
        else log.error("carrying on a window replay failed; it is due again when its lease ends", { replay: replay.id, error: e });
        return false;
      }
    }),
  );
  return ends.filter(Boolean).length;
}
