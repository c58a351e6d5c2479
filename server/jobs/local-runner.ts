import type { Clock } from "@/server/clock";
import type { Db } from "@/db/client";
import { log } from "@/server/log";
import type { ProviderRegistry } from "@/server/providers/port";
import { sweepExpiredIdempotencyKeys } from "@/server/services/idempotency/sweep-expired-keys";
import { sweepOldPaymentDays } from "@/server/services/overview/payment-days";
import { loadDeliveries, recordAttempts, sendDelivery, type AttemptResult, type Loaded, type WebhookSender } from "@/server/services/webhooks/attempt-delivery";
import { fanOutEvents } from "@/server/services/webhooks/fan-out-events";
import { dailyCutoff } from "@/server/domain/settlements";
import { claimIsStale, ENDPOINT_CONCURRENCY, endpointShare } from "@/server/domain/webhooks";
import { payDueSettlements } from "@/server/services/settlements/pay-settlement";
import { runSettlements } from "@/server/services/settlements/run-settlements";
import { BackgroundScope } from "@/server/background";
import { Batcher } from "./batcher";
import { CLAIM_SIZE, carryOnStalledReplays, DUE_KINDS, runDueBatch } from "./due-batch";
import { claimDueDeliveriesSharing, nextDueAt, renewDeliveryLease } from "./due-work";

export { CLAIM_SIZE };

type Deps = { db: Db; clock: Clock; providers: ProviderRegistry; webhooks: WebhookSender; merchantId?: string };

const BATCH = 100;
/**
 * The most attempts to one endpoint in flight at once, when it is the only one with deliveries:
 * half the slots, so that an endpoint that answers nothing, with a backlog (a large window
 * replayed to it), leaves the other half to everyone else's webhooks. With more endpoints at work,
 * each gets less (endpointShare), and a share is always left for one more.
 */
export const DELIVERY_PER_ENDPOINT = ENDPOINT_CONCURRENCY;
/** Webhook attempts in flight at once; they wait on merchants' servers, not on this process. */
export const DELIVERY_CONCURRENCY = 2 * DELIVERY_PER_ENDPOINT;
const RELAY_BATCH = 500;
/** Stalled window replays one pass claims; each runs on beside the passes until its window is queued. */
const REPLAY_CLAIM = 2;
/** Free slots that make it worth claiming more. */
const DELIVERY_REFILL = 16;
/** The longest it sleeps without looking: bounds lateness for work another instance created. */
const MAX_SLEEP_MS = 1_000;
/** A pass with work left stops after this long, so that work due meanwhile is seen at once. */
export const PASS_BUDGET_MS = 1_000;
/**
 * Passes start at least this far apart. New work due now (an event to relay) waits for the next
 * pass rather than starting one of its own, so a busy API's events are relayed and delivered in
 * batches instead of costing a pass each; a webhook leaves at most this much later.
 */
export const PASS_SPACING_MS = 50;
/**
 * The default driver of durable work: in the server process, it claims what is due and runs the
 * same verbs the Inngest functions run. It sleeps until the earliest due time (at most a second)
 * and wakes at once when told there is new work.
 */
export class LocalRunner {
  private timer: NodeJS.Timeout | undefined;
  private wakeAt = Number.POSITIVE_INFINITY;
  private running = false;
  private stopped = true;
  private wakeRequested = false;
  /** When the last pass started (performance.now()): the next starts PASS_SPACING_MS after it at the soonest. */
  private passStartedAt = Number.NEGATIVE_INFINITY;
  /**
   * More deliveries may be due than the last claim took (it got all it asked for, or an endpoint
   * is at its share), so finished attempts claim the next rather than passes waking for them.
   */
  private moreDeliveriesDue = false;
  /** Attempts finished since the last claim of deliveries began: a backlog is claimed DELIVERY_REFILL at a time. */
  private finishedSinceClaim = 0;
  private readonly background = new BackgroundScope("LocalRunner");

  constructor(private readonly deps: Deps) {}

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.halted = false;
    this.schedule(0);
  }

  stop(): void {
    this.stopped = true;
    this.halted = true;
    clearTimeout(this.timer);
    clearTimeout(this.besideTimer);
    this.besideTimer = undefined;
  }

  /**
   * New work falls due at `at`: wake then if that is sooner than planned (and no sooner than
   * PASS_SPACING_MS after the last pass started). Most new work is due seconds away (an expiry, a
   * first status check), so a busy API does not keep the runner awake.
   */
  notify(at: Date = new Date(0)): void {
    if (this.stopped) return;
    const delay = Math.max(0, at.getTime() - this.deps.clock.now().getTime());
    if (this.running) {
      if (delay === 0) {
        this.wakeRequested = true;
        this.relayBesideSlowPass();
      }
      return;
    }
    const wait = Math.max(delay, this.spacing());
    if (performance.now() + wait >= this.wakeAt) return;
    this.schedule(wait);
  }

  /** Timer of relayBesideSlowPass, and the relay it started while that runs. */
  private besideTimer: NodeJS.Timeout | undefined;
  private besidePass: Promise<void> | undefined;

  /**
   * Events recorded during a pass are relayed when it ends, which is soon: a pass stops after
   * PASS_BUDGET_MS. But one batch can hold a pass far longer (a provider's status API timing out
   * keeps a batch of checks waiting for seconds), and other merchants' webhooks must not wait for
   * it. So once a pass has run past its budget, new events are relayed and their deliveries
   * started beside it, one such relay at a time.
   */
  private relayBesideSlowPass(): void {
    if (this.besideTimer || this.besidePass || this.halted) return;
    const wait = Math.max(PASS_SPACING_MS, this.passStartedAt + PASS_BUDGET_MS - performance.now());
    this.besideTimer = this.background.setTimeout(() => {
      this.besideTimer = undefined;
      // The pass ended meanwhile: the next one, due at once, relays them.
      if (!this.running || this.halted) return;
      const work: Promise<void> = this.part("relaying events beside a slow pass", async () => void ((await this.relayEvents()) > 0 && (await this.startDeliveries())), undefined).finally(() => {
        this.besidePass = undefined;
        this.inFlight.delete(work);
      });
      this.besidePass = work;
      this.inFlight.add(work);
    }, wait);
    this.besideTimer.unref();
  }

  /** How long until a pass may start: PASS_SPACING_MS after the last one started. */
  private spacing(): number {
    return Math.max(0, this.passStartedAt + PASS_SPACING_MS - performance.now());
  }

  /**
   * One pass over due work; returns the payment and refund ids it handled. The kinds take turns, a
   * batch each per round, so a backlog of one (thousands of expiries after an outage) never holds
   * up another (a refund due now); a pass stops after PASS_BUDGET_MS with work left and the next
   * starts at once, re-reading what is due. Webhook attempts it starts run on in the background (a
   * slow receiver must not hold up an expiry); `settled()` waits.
   */
  async tick(): Promise<string[]> {
    const started = performance.now();
    this.partFailed = false;
    await this.part("housekeeping", () => this.housekeeping(), undefined);
    // One read says which kinds have anything due; the others cost nothing this pass.
    const now = this.deps.clock.now();
    const due = await nextDueAt(this.deps.db, now);
    const isDue = (at: Date | null) => at !== null && at.getTime() <= now.getTime();
    // Outbox rows are due the moment they exist, whatever their clock said.
    const relayed = due.kinds.outbox ? await this.part("relaying events to webhooks", () => this.relayEvents(), 0) : 0;
    const deliveries = () => (relayed > 0 || this.ready.length > 0 || isDue(due.deliveries) ? this.part("starting webhook deliveries", () => this.startDeliveries(), undefined) : undefined);
    await deliveries();
    const handled: string[] = [];
    const pending = new Set(DUE_KINDS.filter((kind) => isDue(due.kinds[kind])));
    while (pending.size > 0) {
      for (const kind of pending) {
        const ids = await this.part(`due ${kind} work`, () => this.claimAndRun(kind), null);
        if (ids) handled.push(...ids);
        if (!ids || ids.length < CLAIM_SIZE[kind]) pending.delete(kind);
      }
      if (pending.size > 0 && performance.now() - started > PASS_BUDGET_MS) {
        this.wakeRequested = true;
        break;
      }
    }
    await this.part("settlements", () => this.settle(isDue(due.kinds.payouts)), undefined);
    if (isDue(due.kinds.replays)) this.carryOnReplays();
    await deliveries();
    return handled;
  }

  /** Set when a part of the last pass failed: the next pass waits the longest sleep, not a spin on it. */
  private partFailed = false;

  /**
   * One part of a pass. Its failure (an endpoint whose secret cannot be read, a bug in one kind of
   * work) is logged and leaves its work due, while the pass goes on: expiries must not stop
   * because webhooks cannot be relayed.
   */
  private async part<T>(what: string, work: () => Promise<T>, otherwise: T): Promise<T> {
    try {
      return await work();
    } catch (e) {
      this.partFailed = true;
      log.error(`local runner: ${what} failed; the rest of the pass goes on, and it is tried again`, { error: e });
      return otherwise;
    }
  }

  /** Claims one batch of a kind of due work and runs it; a failure leaves the work due again when its lease ends. */
  private claimAndRun(kind: (typeof DUE_KINDS)[number]): Promise<string[]> {
    return runDueBatch(this.deps, kind);
  }

  /** The cutoff of the last daily settlement run this runner made (none yet: it runs on its first pass). */
  private lastCutoff = Number.NEGATIVE_INFINITY;

  /**
   * The daily settlement run once each Harare midnight has passed (and once at start: running it
   * again batches nothing twice), then test-mode payouts when any are due.
   */
  private async settle(payoutsDue: boolean): Promise<void> {
    const now = this.deps.clock.now();
    const cutoff = dailyCutoff(now);
    if (cutoff.getTime() > this.lastCutoff) {
      await runSettlements(this.deps, { cutoff, merchantId: this.deps.merchantId });
      this.lastCutoff = cutoff.getTime();
    }
    while (payoutsDue && (await payDueSettlements(this.deps, { limit: BATCH, merchantId: this.deps.merchantId })).length === BATCH);
  }

  /**
   * Resolves when the pass under way (if any), the webhook attempts started so far (and those they
   * chained) and the relays beside a pass have finished. After stop(), the runner is then quiet: a
   * pass that was running when stop() was called has ended too.
   */
  async settled(): Promise<void> {
    while (this.pass || this.inFlight.size > 0) await Promise.all([this.pass, ...this.inFlight]);
  }

  /** Attempts and their recording, for settled(). */
  private readonly inFlight = new Set<Promise<void>>();
  /** Set by stop(): no more claims. (A runner never started still works by tick(), as tests drive it.) */
  private halted = false;
  /** HTTP requests in flight: at most DELIVERY_CONCURRENCY. */
  private sending = 0;
  /** Claimed and loaded, waiting for a free slot: a slot that frees starts the next at once. */
  private ready: Loaded[] = [];
  /** Per endpoint, the deliveries claimed and not yet finished (waiting in `ready` or in flight). */
  private readonly held = new Map<string, number>();
  /** Per endpoint, the attempts in flight: at most its share (sendShare), started while under it. */
  private readonly sendingTo = new Map<string, number>();
  private claiming: Promise<void> | undefined;
  /** Attempts are recorded together: one statement for up to DELIVERY_CONCURRENCY, at most 5 ms after the first. */
  private readonly recorder = new Batcher<AttemptResult>(async (results) => void (await recordAttempts(this.deps, results)), DELIVERY_CONCURRENCY, 5);

  /** Committed events become deliveries (one per subscribed endpoint); returns how many deliveries it made. */
  private async relayEvents(): Promise<number> {
    let made = 0;
    for (;;) {
      const { events, deliveries } = await fanOutEvents(this.deps, { limit: RELAY_BATCH, merchantId: this.deps.merchantId });
      made += deliveries.length;
      if (events < RELAY_BATCH) return made;
    }
  }

  /**
   * Keeps up to DELIVERY_CONCURRENCY requests in flight with a batch claimed ahead: claims (and
   * loads) due deliveries while the ready queue is under one batch, then starts what fits.
   */
  private startDeliveries(): Promise<void> {
    // `finally` runs after the assignment, even when the loop finds nothing to await.
    this.claiming ??= this.claimDeliveries().finally(() => {
      this.claiming = undefined;
    });
    return this.claiming;
  }

  private async claimDeliveries(): Promise<void> {
    for (;;) {
      // Deliveries waiting behind an endpoint at its share do not count: they must not keep
      // another endpoint's from being claimed.
      const startable = this.startable();
      if (this.halted || startable >= DELIVERY_CONCURRENCY) return;
      const want = 2 * DELIVERY_CONCURRENCY - startable - this.sending;
      // The slots are full; the claim that filled them decided whether more are due.
      if (want < DELIVERY_REFILL) return;
      this.finishedSinceClaim = 0;
      const share = { limit: this.heldShare(), held: this.held };
      const { ids, more } = await claimDueDeliveriesSharing(this.deps.db, this.deps.clock.now(), want, { merchantId: this.deps.merchantId, share });
      const loaded = ids.length > 0 ? await loadDeliveries(this.deps, ids) : [];
      for (const l of loaded) count(this.held, l.endpoint.id, +1);
      this.ready.push(...loaded);
      // An endpoint at its share may have due deliveries the claim did not read.
      this.moreDeliveriesDue = more || this.anyEndpointAtShare();
      this.pump();
      // Claim again at once after a full claim, or when enough attempts finished meanwhile.
      // Otherwise finished attempts claim more, or the next pass (within MAX_SLEEP_MS), which
      // reads past the backlog of an endpoint that has since reached its share.
      if (ids.length < want && !(this.moreDeliveriesDue && this.finishedSinceClaim >= DELIVERY_REFILL)) return;
    }
  }

  /** Attempts one endpoint may have in flight now, by how many endpoints have deliveries claimed. */
  private sendShare(): number {
    return endpointShare(DELIVERY_CONCURRENCY, this.held.size);
  }

  /** Deliveries one endpoint may hold (claimed, waiting or in flight): its share of the slots, and as many ready behind them. */
  private heldShare(): number {
    return 2 * this.sendShare();
  }

  /** Ready deliveries whose endpoint is under its share of the slots. */
  private startable(): number {
    const share = this.sendShare();
    let n = 0;
    for (const loaded of this.ready) if ((this.sendingTo.get(loaded.endpoint.id) ?? 0) < share) n++;
    return n;
  }

  /** Starts ready deliveries, oldest claimed first, while slots are free, skipping endpoints at their share of them. */
  private pump(): void {
    const share = this.sendShare();
    for (let i = 0; this.sending < DELIVERY_CONCURRENCY && i < this.ready.length; ) {
      const loaded = this.ready[i]!;
      if ((this.sendingTo.get(loaded.endpoint.id) ?? 0) >= share) {
        i++;
        continue;
      }
      this.ready.splice(i, 1);
      this.sending++;
      count(this.sendingTo, loaded.endpoint.id, +1);
      // A slot is an HTTP request in flight; recording happens in batches behind it.
      const attempt = this.stillOurs(loaded)
        .then(async (current) => {
          if (current) this.track(this.recorder.add(await sendDelivery(this.deps, current)), loaded.delivery.id);
        })
        .finally(() => {
          this.sending--;
          count(this.sendingTo, loaded.endpoint.id, -1);
          count(this.held, loaded.endpoint.id, -1);
          this.finishedSinceClaim++;
          this.pump();
          // Only a backlog is claimed as slots free up, DELIVERY_REFILL at a time; otherwise new
          // deliveries come with a pass (a relay, or retries falling due), not a claim after every attempt.
          if (this.moreDeliveriesDue && this.finishedSinceClaim >= DELIVERY_REFILL && !this.halted) {
            this.startDeliveries().catch((e: unknown) => log.error("claiming webhook deliveries failed", { error: e }));
          }
        });
      this.track(attempt, loaded.delivery.id);
    }
  }

  /**
   * The delivery as it may be sent now: as claimed, or, after a wait in the queue (claimIsStale),
   * re-leased with its endpoint as it is now. Null when it is no longer this runner's (its lease
   * ran out and another claim took it, or an attempt was made): the queued copy is dropped unsent.
   */
  private async stillOurs(loaded: Loaded): Promise<Loaded | null> {
    const now = this.deps.clock.now();
    if (!claimIsStale(loaded.delivery.nextAttemptAt, now)) return loaded;
    const renewed = await renewDeliveryLease(this.deps.db, loaded.delivery, now);
    return renewed && { ...loaded, delivery: { ...loaded.delivery, nextAttemptAt: renewed.leasedUntil }, endpoint: renewed.endpoint };
  }

  private anyEndpointAtShare(): boolean {
    const share = this.heldShare();
    for (const held of this.held.values()) if (held >= share) return true;
    return false;
  }

  /**
   * Claims window replays whose runner died and carries them on beside the passes (a day's window
   * takes seconds to queue); each batch renews its lease, so no pass claims it again meanwhile.
   */
  private carryOnReplays(): void {
    // Each replay's failure is logged where it happens; only the claim's (the database) comes here.
    const work: Promise<void> = carryOnStalledReplays(this.deps, REPLAY_CLAIM)
      .then(
        () => undefined,
        (e: unknown) => log.error("claiming window replays to carry on failed; they stay due", { error: e }),
      )
      .finally(() => this.inFlight.delete(work));
    this.inFlight.add(work);
  }

  /** Keeps a promise for settled(), and logs its failure: the delivery is due again when its lease ends. */
  private track(work: Promise<void>, deliveryId: string): void {
    const tracked: Promise<void> = work
      .catch((e: unknown) => log.error("webhook attempt failed; the delivery is due again when its lease ends", { delivery: deliveryId, error: e }))
      .finally(() => this.inFlight.delete(tracked));
    this.inFlight.add(tracked);
  }

  private lastSweep = Number.NEGATIVE_INFINITY;

  /** Once a minute: forget idempotency records past their 24 h, and the overview's days no one reads. */
  private async housekeeping(): Promise<void> {
    if (this.deps.merchantId || performance.now() - this.lastSweep < 60_000) return;
    this.lastSweep = performance.now();
    while ((await sweepExpiredIdempotencyKeys(this.deps, 1_000)) === 1_000);
    while ((await sweepOldPaymentDays(this.deps, 1_000)) === 1_000);
  }

  private schedule(ms: number): void {
    clearTimeout(this.timer);
    this.wakeAt = performance.now() + ms; // monotonic: this is timer bookkeeping, not business time
    // notify() is called while requests are served: the wake-up must not keep (or run in) theirs.
    this.timer = this.background.setTimeout(() => void this.loop(), ms);
    this.timer.unref();
  }

  /** The pass loop() is running, for settled(). */
  private pass: Promise<void> | undefined;

  private loop(): Promise<void> {
    if (this.stopped || this.running) return Promise.resolve();
    this.running = true;
    const pass = this.runPass().finally(() => {
      if (this.pass === pass) this.pass = undefined;
    });
    this.pass = pass;
    return pass;
  }

  /** One pass and the scheduling of the next; never rejects. */
  private async runPass(): Promise<void> {
    this.passStartedAt = performance.now();
    let sleep = MAX_SLEEP_MS;
    try {
      await this.tick();
      const due = await nextDueAt(this.deps.db, this.deps.clock.now());
      // With a backlog of deliveries, finished attempts claim the next ones: no need to wake for them.
      const times = [due.work, this.moreDeliveriesDue ? null : due.deliveries].filter((d) => d !== null);
      if (times.length) sleep = Math.min(MAX_SLEEP_MS, Math.max(0, Math.min(...times.map((d) => d.getTime())) - this.deps.clock.now().getTime()));
    } catch (e) {
      log.error("local runner pass failed", { error: e });
    } finally {
      this.running = false;
    }
    if (this.stopped) return;
    if (this.partFailed) sleep = MAX_SLEEP_MS;
    this.schedule(this.wakeRequested && !this.partFailed ? this.spacing() : Math.max(sleep, this.spacing()));
    this.wakeRequested = false;
  }
}

/** Adds `change` to `key`'s count, dropping counts that reach zero. */
function count(counts: Map<string, number>, key: string, change: 1 | -1): void {
  const n = (counts.get(key) ?? 0) + change;
  if (n > 0) counts.set(key, n);
  else counts.delete(key);
}
