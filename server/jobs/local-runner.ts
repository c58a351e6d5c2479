import type { Clock } from "@/server/clock";
import type { Db } from "@/db/client";
import { log } from "@/server/log";
import type { ProviderRegistry } from "@/server/providers/port";
import { expirePayment } from "@/server/services/payments/expire-payment";
import { sweepExpiredIdempotencyKeys } from "@/server/services/idempotency/sweep-expired-keys";
import { reconcilePayment } from "@/server/services/payments/reconcile-payment";
import { attemptDelivery, type WebhookSender } from "@/server/services/webhooks/attempt-delivery";
import { fanOutEvents } from "@/server/services/webhooks/fan-out-events";
import { claimDue, claimDueDeliveries, nextDueAt } from "./due-work";

type Deps = { db: Db; clock: Clock; providers: ProviderRegistry; webhooks: WebhookSender; merchantId?: string };

const BATCH = 100;
const CONCURRENCY = 32;
/** Webhook attempts in flight at once; they wait on merchants' servers, not on this process. */
const DELIVERY_CONCURRENCY = 64;
const RELAY_BATCH = 500;
/** The longest it sleeps without looking: bounds lateness for work another instance created. */
const MAX_SLEEP_MS = 1_000;

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

  constructor(private readonly deps: Deps) {}

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.schedule(0);
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
  }

  /**
   * New work falls due at `at`: wake then if that is sooner than planned. Most new work is due
   * seconds away (an expiry, a first status check), so a busy API does not keep the runner awake.
   */
  notify(at: Date = new Date(0)): void {
    if (this.stopped) return;
    const delay = Math.max(0, at.getTime() - this.deps.clock.now().getTime());
    if (performance.now() + delay >= this.wakeAt) return;
    if (this.running) {
      if (delay === 0) this.wakeRequested = true;
      return;
    }
    this.schedule(delay);
  }

  /**
   * One pass over all due work; returns the payment ids it handled. Webhook attempts it starts
   * run on in the background (a slow receiver must not hold up an expiry); `settled()` waits.
   */
  async tick(): Promise<string[]> {
    await this.housekeeping();
    await this.relayEvents();
    const handled: string[] = [];
    for (const kind of ["expiry", "reconcile"] as const) {
      for (;;) {
        const ids = await claimDue(this.deps.db, kind, this.deps.clock.now(), BATCH, this.deps.merchantId);
        await mapLimit(ids, CONCURRENCY, (id) =>
          (kind === "expiry" ? expirePayment(this.deps, id) : reconcilePayment(this.deps, id)).catch((e: unknown) =>
            log.error("due work failed; it will be due again when its lease ends", { kind, payment: id, error: e }),
          ),
        );
        handled.push(...ids);
        if (ids.length < BATCH) break;
      }
    }
    await this.startDeliveries();
    return handled;
  }

  /** Resolves when the webhook attempts started so far (and those they chained) have finished. */
  async settled(): Promise<void> {
    while (this.inFlight.size > 0) await Promise.all(this.inFlight);
  }

  private readonly inFlight = new Set<Promise<void>>();
  private moreDeliveries = false;

  /** Committed events become deliveries (one per subscribed endpoint). */
  private async relayEvents(): Promise<void> {
    while ((await fanOutEvents(this.deps, { limit: RELAY_BATCH, merchantId: this.deps.merchantId })).events === RELAY_BATCH);
  }

  /** Claims as many due deliveries as there are free slots and starts them; a finished one claims more. */
  private async startDeliveries(): Promise<void> {
    const free = DELIVERY_CONCURRENCY - this.inFlight.size;
    if (free <= 0) {
      this.moreDeliveries = true;
      return;
    }
    const ids = await claimDueDeliveries(this.deps.db, this.deps.clock.now(), free, { merchantId: this.deps.merchantId });
    if (ids.length === free) this.moreDeliveries = true;
    for (const id of ids) {
      const attempt: Promise<void> = attemptDelivery(this.deps, id)
        .then(
          () => undefined,
          (e: unknown) => log.error("webhook attempt failed; the delivery is due again when its lease ends", { delivery: id, error: e }),
        )
        .finally(() => {
          this.inFlight.delete(attempt);
          if (!this.moreDeliveries || this.stopped) return;
          this.moreDeliveries = false;
          this.startDeliveries().catch((e: unknown) => log.error("claiming webhook deliveries failed", { error: e }));
        });
      this.inFlight.add(attempt);
    }
  }

  private lastSweep = Number.NEGATIVE_INFINITY;

  /** Once a minute: forget idempotency records past their 24 h. */
  private async housekeeping(): Promise<void> {
    if (this.deps.merchantId || performance.now() - this.lastSweep < 60_000) return;
    this.lastSweep = performance.now();
    while ((await sweepExpiredIdempotencyKeys(this.deps, 1_000)) === 1_000);
  }

  private schedule(ms: number): void {
    clearTimeout(this.timer);
    this.wakeAt = performance.now() + ms; // monotonic: this is timer bookkeeping, not business time
    this.timer = setTimeout(() => void this.loop(), ms);
    this.timer.unref();
  }

  private async loop(): Promise<void> {
    if (this.stopped || this.running) return;
    this.running = true;
    let sleep = MAX_SLEEP_MS;
    try {
      await this.tick();
      const due = await nextDueAt(this.deps.db);
      if (due) sleep = Math.min(MAX_SLEEP_MS, Math.max(0, due.getTime() - this.deps.clock.now().getTime()));
    } catch (e) {
      log.error("local runner pass failed", { error: e });
    } finally {
      this.running = false;
    }
    if (this.stopped) return;
    this.schedule(this.wakeRequested ? 0 : sleep);
    this.wakeRequested = false;
  }
}

async function mapLimit<T>(items: T[], limit: number, fn: (item: T) => Promise<unknown>): Promise<void> {
  let next = 0;
  const workers = Array.from({ length: Math.min(limit, items.length) }, async () => {
    while (next < items.length) await fn(items[next++]!);
  });
  await Promise.all(workers);
}
