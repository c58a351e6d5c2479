/**
 * How services say "there is new durable work" without knowing which driver runs it (services
 * emit, the drivers in server/jobs subscribe, so nothing here points the wrong way). The driver
 * started at boot (local runner or Inngest) subscribes; with none, nothing happens, and the
 * database still holds the truth the runner or the sweeper will find.
 */
import type { QueuedDelivery } from "@/server/domain/webhooks";

export type JobSignal =
  | { type: "payment.created"; paymentId: string; expiresAt: Date }
  | { type: "payment.unknown"; paymentId: string; unknownSince: Date }
  /** A pending refund: its next submission or status check falls due at `dueAt`. */
  | { type: "refund.created"; refundId: string; dueAt: Date }
  /** Events committed: their outbox rows wait to be fanned out into webhook deliveries. */
  | { type: "events.recorded"; eventIds: string[] }
  /** Deliveries due at `at`: a test ping's, or those a replay queued or brought forward. */
  | { type: "webhooks.queued"; deliveries: QueuedDelivery[]; at: Date }
  /**
   * A window replay handed back to be carried on now (a request answered before its window was all
   * queued, or a runner's part ran out of time): `afterEventId`, its cursor, tells one hand-back from the next.
   */
  | { type: "replay.handed-back"; replayId: string; afterEventId: string | null }
  /** Settlement batches made; test-mode ones pay out at `payAfter` (live ones wait for an operator). */
  | { type: "settlements.created"; settlements: { id: string; payAfter: Date | null }[] };

type Listener = (signal: JobSignal) => void;

const holder = globalThis as unknown as { __mariJobListener?: Listener };

export function onJobSignal(listener: Listener | undefined): void {
  holder.__mariJobListener = listener;
}

/** Fire and forget: a lost signal costs lateness (the sweep finds the work), never the work. */
export function signalJobs(signal: JobSignal): void {
  try {
    holder.__mariJobListener?.(signal);
  } catch {
    // A driver's failure must never fail the request that produced the work.
  }
}
