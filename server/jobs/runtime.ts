import { listenForWork, type Db } from "@/db/client";
import { systemClock } from "@/server/clock";
import { log } from "@/server/log";
import { providers, sandbox } from "@/server/providers/registry";
import { receiveProviderCallback } from "@/server/services/providers/receive-callback";
import { UNKNOWN_CHECK_DELAYS_S } from "@/server/domain/reconcile-schedule";
import { env } from "@/server/env";
import { onJobSignal, type JobSignal } from "@/server/services/job-signals";
import { LocalRunner } from "./local-runner";
import { sharedWebhookPoster } from "./webhook-poster";

const holder = globalThis as unknown as { __mariRunner?: LocalRunner };

/**
 * Starts what runs in the background of a server process: the sandbox's callbacks go to the same
 * verb the callback route calls, and the local runner drives timers (one per process, kept across
 * dev reloads).
 */
export function startBackgroundWork(db: Db): void {
  sandbox.deliverCallbacksTo((headers, rawBody) =>
    receiveProviderCallback({ db, clock: systemClock, providers }, { providerName: "sandbox", headers, rawBody }),
  );
  if (env().jobDriver === "inngest") {
    onJobSignal((signal) => void sendToInngest(signal));
    log.info("durable work runs as Inngest functions (/api/inngest)");
    return;
  }
  if (holder.__mariRunner) return;
  const runner = new LocalRunner({ db, clock: systemClock, providers, webhooks: sharedWebhookPoster() });
  holder.__mariRunner = runner;
  onJobSignal((signal) => {
    const at = dueAt(signal);
    if (at) runner.notify(at);
  });
  // Work committed by other instances (or scripts) wakes this runner too.
  listenForWork(() => runner.notify()).catch((e: unknown) => log.warn("LISTEN for new work failed; the runner still looks every second", { error: e }));
  runner.start();
  log.info("local job runner started");
}

/** When the work a signal announces falls due; null when nothing waits on a timer (live payouts wait for an operator). */
function dueAt(signal: JobSignal): Date | null {
  switch (signal.type) {
    case "payment.created":
      return signal.expiresAt;
    case "payment.unknown":
      return new Date(signal.unknownSince.getTime() + UNKNOWN_CHECK_DELAYS_S[0] * 1000);
    case "refund.created":
      return signal.dueAt;
    case "events.recorded":
    case "webhooks.queued":
    case "replay.handed-back":
      return new Date(0);
    case "settlements.created": {
      const payouts = signal.settlements.flatMap((s) => (s.payAfter ? [s.payAfter.getTime()] : []));
      return payouts.length ? new Date(Math.min(...payouts)) : null;
    }
  }
}

/** A failed send loses no work: the sweep-overdue function finds what is due. */
async function sendToInngest(signal: JobSignal): Promise<void> {
  const [{ inngest, sendInChunks }, { signalEvents }] = await Promise.all([import("./inngest/client"), import("./inngest/signal-events")]);
  // A replay of a window queues thousands of deliveries at once: each chunk is a send of its own.
  const events = signalEvents(signal);
  await sendInChunks<(typeof events)[number]>(events, signal.type, (_, chunk) =>
    inngest.send(chunk).catch((e: unknown) => log.warn("inngest.send failed; the sweeper will catch up", { signal: signal.type, events: chunk.length, error: e })),
  );
}
