import { eq, sql } from "drizzle-orm";
import { planPerValue } from "@/db/client";
import { rowsOf } from "@/db/rows";
import { events, webhookAttempts, webhookDeliveries, webhookEndpoints, type DeliveryStatus, type EventRow, type WebhookDelivery, type WebhookEndpoint } from "@/db/schema";
import type { BaseContext } from "@/server/context";
import { newId } from "@/server/domain/ids";
import { signatureHeader } from "@/server/domain/signatures";
import { DEGRADED_AFTER_FAILURES, GIVE_UP_AFTER_MS, healthChange, nextAttemptAt, NOT_SENT, SIGNATURE_HEADER, signingSecrets } from "@/server/domain/webhooks";
import { toEventResource } from "@/server/schemas/events";
import type { WebhookPostResult } from "@/server/webhooks/post-webhook";

/** Sends one signed POST and reports what happened; never throws. */
export type WebhookSender = { post(url: string, body: string, headers: Record<string, string>): Promise<WebhookPostResult> };

export type DeliveryContext = BaseContext & { webhooks: WebhookSender };

export type AttemptOutcome = { status: DeliveryStatus; nextAttemptAt: Date | null };

/** What an attempt needs of a delivery, its endpoint and its event: no more is read. */
export type Loaded = {
  delivery: Pick<WebhookDelivery, "id" | "status" | "attemptCount" | "replayedAttempts" | "firstAttemptAt" | "nextAttemptAt" | "resumeAt">;
  endpoint: Pick<WebhookEndpoint, "id" | "url" | "status" | "deletedAt" | "secret" | "previousSecret" | "previousSecretExpiresAt">;
  event: Pick<EventRow, "id" | "type" | "createdAt" | "livemode" | "data">;
};

/** The endpoint's columns an attempt reads (Loaded's endpoint). */
export const LOADED_ENDPOINT = {
  id: webhookEndpoints.id,
  url: webhookEndpoints.url,
  status: webhookEndpoints.status,
  deletedAt: webhookEndpoints.deletedAt,
  secret: webhookEndpoints.secret,
  previousSecret: webhookEndpoints.previousSecret,
  previousSecretExpiresAt: webhookEndpoints.previousSecretExpiresAt,
};

/** What one attempt did, ready to be recorded (with others: see recordAttempts). */
export type AttemptResult = {
  delivery: Loaded["delivery"];
  endpointId: string;
  attemptedAt: Date;
  post: WebhookPostResult;
  /** False when nothing was sent (disabled or deleted endpoint): not a mark against its health. */
  counts: boolean;
  status: DeliveryStatus;
  retryAt: Date | null;
};

/**
 * The deliveries with their endpoints and events, in one query, whatever the number of ids: one
 * statement text (`= any($1)`), so one prepared statement, planned for each run's ids (see
 * planPerValue). Endpoint and event are each reached by
 * its primary key from the delivery: a LATERAL subquery with a LIMIT is not flattened into a join,
 * so even a generic plan made while the tables were small cannot turn into a hash join over every
 * event ever recorded.
 */
export async function loadDeliveries(ctx: BaseContext, ids: string[]): Promise<Loaded[]> {
  if (ids.length === 0) return [];
  const d = webhookDeliveries;
  const w = webhookEndpoints;
  const endpoint = ctx.db
    .select(LOADED_ENDPOINT)
    .from(w)
    .where(eq(w.id, d.endpointId))
    .limit(1)
    .as("endpoint");
  const event = ctx.db
    .select({ id: events.id, type: events.type, createdAt: events.createdAt, livemode: events.livemode, data: events.data })
    .from(events)
    .where(eq(events.id, d.eventId))
    .limit(1)
    .as("event");
  return ctx.db
    .select({
      delivery: {
        id: d.id,
        status: d.status,
        attemptCount: d.attemptCount,
        replayedAttempts: d.replayedAttempts,
        firstAttemptAt: d.firstAttemptAt,
        nextAttemptAt: d.nextAttemptAt,
        resumeAt: d.resumeAt,
      },
      endpoint: endpoint._.selectedFields,
      event: event._.selectedFields,
    })
    .from(d)
    .innerJoinLateral(endpoint, sql`true`)
    .innerJoinLateral(event, sql`true`)
    // Planned for each run: prepared once, a generic plan made while the table was small (a new
    // database; on a server without autovacuum, no ANALYZE ever replaces it) scans every delivery.
    .where(planPerValue(sql`${d.id} = any(${sql.param(ids)}::text[])`));
}

/**
 * POSTs the event, signed over the exact bytes sent with every current secret of the endpoint,
 * and decides what follows: delivered, a retry at the schedule's next time, or failed for good.
 * An attempt a replay brought forward that fails goes back to the retry it was brought forward
 * from: pressing Replay while the receiver is still down leaves the schedule as it was, rather
 * than using up its retries minutes apart.
 * Nothing is sent to a disabled or deleted endpoint; the attempt says why, and a replay can resend.
 */
export async function sendDelivery(ctx: DeliveryContext, { delivery, endpoint, event }: Loaded): Promise<AttemptResult> {
  const attemptedAt = ctx.clock.now();
  let post: WebhookPostResult;
  let counts = true;
  const firstAt = delivery.firstAttemptAt;
  if (endpoint.status !== "enabled" || endpoint.deletedAt) {
    post = { ok: false, statusCode: null, latencyMs: 0, error: `${NOT_SENT} the endpoint is ${endpoint.deletedAt ? "deleted" : "disabled"}`, responseBody: "" };
    counts = false;
  } else if (firstAt && attemptedAt.getTime() - firstAt.getTime() > GIVE_UP_AFTER_MS) {
    // Retries stop 24 h after the first attempt: one due before then but picked up after (the
    // service was down) is not sent late. A replay sends the event again.
    post = { ok: false, statusCode: null, latencyMs: 0, error: `${NOT_SENT} more than 24 h after the first attempt`, responseBody: "" };
    counts = false;
  } else {
    const body = JSON.stringify(toEventResource(event));
    const t = Math.floor(attemptedAt.getTime() / 1000);
    post = await ctx.webhooks.post(endpoint.url, body, {
      "Content-Type": "application/json",
      [SIGNATURE_HEADER]: signatureHeader(signingSecrets(endpoint, attemptedAt), t, body),
    });
  }
  const retryAt =
    post.ok || !counts
      ? null
      : (delivery.resumeAt ?? nextAttemptAt(delivery.firstAttemptAt ?? attemptedAt, delivery.attemptCount - delivery.replayedAttempts + 1, attemptedAt));
  return { delivery, endpointId: endpoint.id, attemptedAt, post, counts, status: post.ok ? "delivered" : retryAt ? "pending" : "failed", retryAt };
}

const ts = (d: Date | null) => (d ? d.toISOString() : null);

/**
 * Records attempts in one statement (one implicit transaction, one round trip, however many):
 * every attempt row is kept; each delivery moves only if no one overtook its worker (a
 * compare-and-set on status and attempt count); each endpoint's health row is written only when
 * it changes, since every delivery to an endpoint would otherwise queue on that one row lock.
 * An endpoint's health counts only the attempts whose delivery moved: one an overtaken worker made
 * is another worker's copy of an attempt already counted. When one was overtaken (rare: a lease
 * lost to clock skew or a stall), its endpoint's health is left to a second statement that counts
 * the others.
 * Returns where each delivery now stands (absent: it was overtaken).
 */
export async function recordAttempts(ctx: BaseContext, results: AttemptResult[]): Promise<Map<string, AttemptOutcome>> {
  if (results.length === 0) return new Map();
  // Each set travels as one JSON parameter and is unpacked by jsonb_to_recordset.
  const moves = results.map((r) => ({
    id: r.delivery.id,
    prev: r.delivery.attemptCount,
    replayed: r.delivery.resumeAt !== null,
    status: r.status,
    first_at: ts(r.delivery.firstAttemptAt ?? r.attemptedAt),
    at: ts(r.attemptedAt),
    next_at: ts(r.retryAt),
    delivered_at: ts(r.post.ok ? r.attemptedAt : null),
  }));
  const attempts = results.map((r) => ({
    id: newId("webhookAttempt", r.attemptedAt),
    delivery_id: r.delivery.id,
    endpoint_id: r.endpointId,
    attempted_at: ts(r.attemptedAt),
    status_code: r.post.statusCode,
    latency_ms: Math.round(r.post.latencyMs),
    // PostgreSQL text (and jsonb) cannot hold U+0000, which a receiver's answer may contain.
    error: r.post.error?.replaceAll("\u0000", "") ?? null,
    response_body: r.post.responseBody.replaceAll("\u0000", ""),
  }));
  const rows = rowsOf<{ id: string; status: DeliveryStatus; next_attempt_at: Date | string | null }>(
    await ctx.db.execute(sql`
      with moved as (
        update ${webhookDeliveries} d
        set status = v.status, attempt_count = v.prev + 1, first_attempt_at = v.first_at, last_attempt_at = v.at,
            next_attempt_at = v.next_at, delivered_at = v.delivered_at,
            replayed_attempts = d.replayed_attempts + v.replayed::int, resume_at = null
        from jsonb_to_recordset(${JSON.stringify(moves)}::jsonb)
          as v(id text, prev smallint, replayed boolean, status text, first_at timestamptz, at timestamptz, next_at timestamptz, delivered_at timestamptz)
        where d.id = v.id and d.status = 'pending' and d.attempt_count = v.prev
        returning d.id, d.status, d.next_attempt_at
      ),
      attempts as (
        insert into ${webhookAttempts} (id, delivery_id, endpoint_id, attempted_at, status_code, latency_ms, error, response_body)
        select a.id, a.delivery_id, a.endpoint_id, a.attempted_at, a.status_code, a.latency_ms, a.error, a.response_body
        from jsonb_to_recordset(${JSON.stringify(attempts)}::jsonb)
          as a(id text, delivery_id text, endpoint_id text, attempted_at timestamptz, status_code smallint, latency_ms int, error text, response_body text)
      ),
      health as (
        ${updateHealth(endpointHealth(results), sql`and not exists (select 1 from jsonb_array_elements_text(h.deliveries) as x(id) where x.id not in (select id from moved))`)}
      )
      select id, status, next_attempt_at from moved`),
  );
  const moved = new Set(rows.map((r) => r.id));
  // An endpoint with an overtaken delivery was skipped above: its health counts the others.
  const skipped = new Set(results.filter((r) => r.counts && !moved.has(r.delivery.id)).map((r) => r.endpointId));
  if (skipped.size > 0) {
    const health = endpointHealth(results.filter((r) => skipped.has(r.endpointId) && moved.has(r.delivery.id)));
    if (health.length > 0) await ctx.db.execute(updateHealth(health));
  }
  return new Map(rows.map((r) => [r.id, { status: r.status, nextAttemptAt: r.next_attempt_at ? new Date(r.next_attempt_at) : null }]));
}

type EndpointHealth = { id: string; reset: boolean; failures: number; times: string[]; deliveries: string[] };

/** What the counted attempts of a batch do to each endpoint's health, and whose deliveries they are. */
function endpointHealth(results: AttemptResult[]): EndpointHealth[] {
  const byEndpoint = new Map<string, AttemptResult[]>();
  for (const r of results.filter((x) => x.counts)) byEndpoint.set(r.endpointId, [...(byEndpoint.get(r.endpointId) ?? []), r]);
  return [...byEndpoint].map(([id, list]) => {
    const change = healthChange(list.map((r) => ({ ok: r.post.ok, at: r.attemptedAt })));
    return { id, reset: change.reset, failures: change.failureTimes.length, times: change.failureTimes.map((d) => d.toISOString()), deliveries: list.map((r) => r.delivery.id) };
  });
}

/** Moves each endpoint's failure count and degradation by `health` (`guard`: a further condition). */
function updateHealth(health: EndpointHealth[], guard = sql``) {
  return sql`
    update ${webhookEndpoints} e
    set consecutive_failures = case when h.reset then h.failures else e.consecutive_failures + h.failures end,
        degraded_since = case
          when h.reset then case when h.failures >= ${DEGRADED_AFTER_FAILURES}::int then (h.times ->> ${DEGRADED_AFTER_FAILURES - 1}::int)::timestamptz end
          when e.consecutive_failures + h.failures >= ${DEGRADED_AFTER_FAILURES}::int
            then coalesce(e.degraded_since, (h.times ->> greatest(0, ${DEGRADED_AFTER_FAILURES - 1}::int - e.consecutive_failures))::timestamptz)
          else e.degraded_since end
    from jsonb_to_recordset(${JSON.stringify(health)}::jsonb) as h(id text, reset boolean, failures int, times jsonb, deliveries jsonb)
    where e.id = h.id and (h.failures > 0 or e.consecutive_failures > 0 or e.degraded_since is not null) ${guard}`;
}

/**
 * One attempt of one delivery, by a worker that holds its lease (see claimDueDeliveries): load,
 * send, record. The local runner does the same in batches; the Inngest function uses this.
 */
export async function attemptDelivery(ctx: DeliveryContext, deliveryId: string): Promise<AttemptOutcome | null> {
  const [loaded] = await loadDeliveries(ctx, [deliveryId]);
  if (!loaded) return null;
  if (loaded.delivery.status !== "pending") return { status: loaded.delivery.status, nextAttemptAt: loaded.delivery.nextAttemptAt };
  const result = await sendDelivery(ctx, loaded);
  // Absent from the answer: overtaken by another worker, whose move is the current state.
  return (await recordAttempts(ctx, [result])).get(deliveryId) ?? deliveryState(ctx, deliveryId);
}

/** Where a delivery stands: its status and when its next attempt (or lease end) falls. */
export async function deliveryState(ctx: BaseContext, deliveryId: string): Promise<AttemptOutcome | null> {
  const [current] = await ctx.db
    .select({ status: webhookDeliveries.status, nextAttemptAt: webhookDeliveries.nextAttemptAt })
    .from(webhookDeliveries)
    .where(eq(webhookDeliveries.id, deliveryId));
  return current ?? null;
}
