import type { Db } from "@/db/client";
import { systemClock } from "@/server/clock";
import { log } from "@/server/log";
import { providers, sandbox } from "@/server/providers/registry";
import { receiveProviderCallback } from "@/server/services/providers/receive-callback";
import { LocalRunner } from "./local-runner";

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
  if (holder.__mariRunner) return;
  holder.__mariRunner = new LocalRunner({ db, clock: systemClock, providers });
  holder.__mariRunner.start();
  log.info("local job runner started");
}

/** Tells the runner there is new work (no-op when none runs in this process). */
export function wakeJobs(): void {
  holder.__mariRunner?.notify();
}
