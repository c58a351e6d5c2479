import { carryOnStalledReplays } from "../due-batch";
import { inngest, replayHandedBack } from "./client";
import { jobDeps } from "./deps";

/** Stalled window replays one part carries on, side by side. */
const REPLAYS = 4;
/**
 * How long one part queues before it hands the rest back (and so starts the next run): a few
 * thousand events, well within one request to the function.
 */
const PART_BUDGET_MS = 15_000;

/**
 * Claims window replays whose lease ran out or was handed back, and carries them on from their
 * cursor for a part's budget. One still queueing then is handed back again, and that hand-back
 * starts the next run: a long window goes on run after run. Returns how many finished.
 */
export function carryOnReplaysPart(): Promise<number> {
  return jobDeps().then((deps) => carryOnStalledReplays(deps, REPLAYS, { budgetMs: PART_BUDGET_MS }));
}

/**
 * A window replay handed back: by a request answered before its window was all queued, or by a part
 * that ran out of time. A lost send costs a minute at most: sweep-overdue carries on stalled replays too.
 */
export const carryOnReplaysFn = inngest.createFunction(
  { id: "carry-on-replays", triggers: [replayHandedBack] },
  async ({ step }) => ({ finished: await step.run("carry-on-replays", carryOnReplaysPart) }),
);
