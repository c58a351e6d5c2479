import { randomBytes } from "node:crypto";
import { TEST_EVENT_TYPE, type EventType } from "./events";

/** Spec §6: retries after 1 min, 5 min, 30 min, 2 h, 6 h and 12 h. The schedule is data. */
export const RETRY_DELAYS_S = [60, 300, 1_800, 7_200, 21_600, 43_200] as const;

/** No attempt is made later than this after the first one. */
export const GIVE_UP_AFTER_MS = 24 * 3600 * 1000;

/** Failed attempts in a row that make an endpoint `degraded` (one success makes it healthy). */
export const DEGRADED_AFTER_FAILURES = 5;

/** During a roll, the old secret keeps signing alongside the new one for this long. */
export const ROLLED_SECRET_OVERLAP_MS = 24 * 3600 * 1000;

/** Spec §6: the header every delivery is signed in (`t=<unix>,v1=<hex>`). */
export const SIGNATURE_HEADER = "Service-Signature";

/**
 * How the error of an attempt that sent nothing begins (the endpoint was disabled or deleted, or
 * the delivery's 24 h had run out): such an attempt is recorded, but it is not the receiver's.
 */
export const NOT_SENT = "not sent:";

/** A receiver answers within this, or the attempt failed. */
export const DELIVERY_TIMEOUT_MS = 10_000;

/**
 * Attempts to one endpoint in flight at once, per worker (the local runner) or across workers
 * (Inngest's concurrency key): an endpoint that answers nothing, with a backlog, then leaves room
 * for every other endpoint's webhooks. Half the local runner's slots.
 */
export const ENDPOINT_CONCURRENCY = 64;

/**
 * An endpoint's share of `slots` attempts in flight while `endpoints` endpoints (itself among
 * them) have deliveries claimed: an equal share, with one share left over for an endpoint that
 * has none yet, so that endpoints which answer nothing never take every slot between them. At
 * most ENDPOINT_CONCURRENCY, at least one.
 */
export function endpointShare(slots: number, endpoints: number): number {
  return Math.max(1, Math.min(ENDPOINT_CONCURRENCY, Math.floor(slots / (endpoints + 1))));
}

/** A delivery queued for an attempt, with the endpoint that shares out attempts (ENDPOINT_CONCURRENCY). */
export type QueuedDelivery = { id: string; endpointId: string };

/** Endpoints per merchant and environment. */
export const MAX_ENDPOINTS = 16;

/**
 * A delivery attempt may take 10 s; a worker's lease on it (its next attempt time pushed this far)
 * covers it with room to record the result.
 */
export const DELIVERY_LEASE_MS = 60_000;

/**
 * A window replay's lease: each batch of 500 events (well under a second) renews it, so one left
 * this long has lost its runner, and a job runner carries it on.
 */
export const REPLAY_LEASE_MS = 30_000;

/**
 * How long `POST /v1/events/replay` queues before it answers: a window that takes longer (a day's
 * events to two endpoints take about 20 s) is answered `running` and handed to the job runner,
 * which carries it on to its end; `GET /v1/event_replays/{id}` follows it. Well under the 30 s
 * that proxies and clients commonly give a request.
 */
export const REPLAY_ANSWER_WITHIN_MS = 5_000;

/**
 * A claimed delivery sent within this of its claim goes as it was loaded. One that waited longer
 * (behind its endpoint's share of the slots, which shrinks as more endpoints have work) is
 * re-leased first, and its endpoint re-read: its lease may no longer cover the attempt, or may have
 * run out and been taken by another worker, and the endpoint may have changed meanwhile.
 */
export const FRESH_CLAIM_MS = 2_000;

/** Whether a delivery leased until `leasedUntil` (by a claim at its end less DELIVERY_LEASE_MS) must be re-leased before it is sent at `now`. */
export function claimIsStale(leasedUntil: Date | null, now: Date): boolean {
  return leasedUntil === null || now.getTime() - (leasedUntil.getTime() - DELIVERY_LEASE_MS) > FRESH_CLAIM_MS;
}

/**
 * How far apart two instances' clocks may be. A lease is taken on the claiming instance's clock,
 * so another may see it end up to this much later than a lease taken at its own now would.
 */
export const CLOCK_SKEW_MS = 5_000;

export const ALL_EVENTS = "*";

/**
 * When the attempt after `attemptsMade` failed attempts falls, or null when the delivery has
 * used its schedule or the next attempt would land more than 24 h after the first one.
 */
export function nextAttemptAt(firstAttemptAt: Date, attemptsMade: number, lastAttemptAt: Date): Date | null {
  const delay = RETRY_DELAYS_S[attemptsMade - 1];
  if (delay === undefined) return null;
  const at = new Date(lastAttemptAt.getTime() + delay * 1000);
  return at.getTime() - firstAttemptAt.getTime() > GIVE_UP_AFTER_MS ? null : at;
}

/** Whether a subscription takes an event type; a test ping is wanted by none (it goes to one endpoint by name). */
export function endpointWants(enabledEvents: readonly string[], type: EventType): boolean {
  if (type === TEST_EVENT_TYPE) return false;
  return enabledEvents.includes(ALL_EVENTS) || enabledEvents.includes(type);
}

/** `whsec_` and 32 random bytes in base64url: the HMAC key, exactly as the merchant sees it. */
export function newWebhookSecret(): string {
  return `whsec_${randomBytes(32).toString("base64url")}`;
}

/** The secrets that sign a delivery at `now`: the current one, and the rolled one while it overlaps. */
export function signingSecrets(
  endpoint: { secret: string; previousSecret: string | null; previousSecretExpiresAt: Date | null },
  now: Date,
): string[] {
  const overlap = endpoint.previousSecret && endpoint.previousSecretExpiresAt && endpoint.previousSecretExpiresAt > now;
  return overlap ? [endpoint.secret, endpoint.previousSecret!] : [endpoint.secret];
}

/**
 * What a run of attempts does to an endpoint's health, in attempt order: a success resets the
 * count, each failure adds one. `failureTimes` are the failures after the last success (all of
 * them without one), so the time the count reached DEGRADED_AFTER_FAILURES can be looked up.
 */
export function healthChange(attempts: readonly { ok: boolean; at: Date }[]): { reset: boolean; failureTimes: Date[] } {
  let reset = false;
  let failureTimes: Date[] = [];
  for (const a of [...attempts].sort((x, y) => x.at.getTime() - y.at.getTime())) {
    if (a.ok) {
      reset = true;
      failureTimes = [];
    } else {
      failureTimes.push(a.at);
    }
  }
  return { reset, failureTimes };
}
