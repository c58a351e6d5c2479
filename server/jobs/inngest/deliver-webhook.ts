import { ENDPOINT_CONCURRENCY, RETRY_DELAYS_S } from "@/server/domain/webhooks";
import { attemptDelivery, deliveryState } from "@/server/services/webhooks/attempt-delivery";
import { fanOutEvents } from "@/server/services/webhooks/fan-out-events";
import { claimDelivery } from "../due-work";
import { deliveryScheduled, eventsRecorded, inngest, scheduleDeliveries } from "./client";
import { jobDeps } from "./deps";
import { waitAgainMs } from "./early-wake";

/** webhook/events.recorded → fan the outbox out into deliveries → one scheduled event per delivery. */
export const relayEventsFn = inngest.createFunction(
  { id: "relay-events", triggers: [eventsRecorded], retries: 10 },
  async ({ step }) => {
    const deliveries = await step.run("fan-out", async () => (await fanOutEvents(await jobDeps())).deliveries);
    await scheduleDeliveries(deliveries, (id, chunk) => step.sendEvent(id, chunk));
    return { deliveries: deliveries.length };
  },
);

/**
 * Each attempt is a round, and so is each look that found the delivery not due (another worker
 * held its lease, or the scheduler woke this run before this server's clock reached the due
 * time): three for each attempt.
 */
const MAX_ROUNDS = (RETRY_DELAYS_S.length + 1) * 3;

/**
 * webhook/delivery.scheduled → attempt → sleep until the schedule's next time → attempt… until the
 * delivery is delivered or failed. Each attempt claims the delivery first (a compare-and-set on
 * its due time), so the sweeper and this function never attempt the same time twice. A look that
 * could not claim it waits the time this server's clock still counts to its due time (measured,
 * not a time to sleep until: by the scheduler's clock that time may have passed, and such a sleep
 * would end at once, round after round).
 */
export const deliverWebhookFn = inngest.createFunction(
  {
    id: "deliver-webhook",
    triggers: [deliveryScheduled],
    retries: 5,
    // Attempts to one endpoint at once, across every worker: sleeping runs hold no slot.
    concurrency: [{ key: "event.data.endpoint_id", limit: ENDPOINT_CONCURRENCY }],
  },
  async ({ event, step }) => {
    const id = event.data.delivery_id;
    for (let round = 0; round < MAX_ROUNDS; round++) {
      const { waitMs, ...state } = await step.run(`attempt-${round}`, async () => {
        const deps = await jobDeps();
        const now = deps.clock.now();
        // Not claimed: not due yet, or another worker holds it; either way its state says when to look again.
        const claimed = await claimDelivery(deps.db, id, now);
        const state = claimed ? await attemptDelivery(deps, id) : await deliveryState(deps, id);
        const next = state?.nextAttemptAt ?? null;
        return { status: state?.status ?? "missing", next: next?.toISOString() ?? null, waitMs: !claimed && next ? waitAgainMs(next, now) : null };
      });
      if (state.status !== "pending" || !state.next) return state;
      // (A step recorded before waitMs was returned has none: it sleeps until its time, as then.)
      if (waitMs) await step.sleep(`wait-${round}`, waitMs);
      else await step.sleepUntil(`wait-${round}`, state.next);
    }
    // Still pending after every round: the sweeper owns it from here.
    return { status: "pending" };
  },
);
