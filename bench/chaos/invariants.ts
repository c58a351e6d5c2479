/**
 * The chaos run's invariants, checked with SQL against the database and against what the webhook
 * receiver saw. Each check returns one line: PASS or FAIL, with its figures and, on FAIL, examples.
 */
import type { Sql } from "postgres";
import type { KeyResult } from "./clients";

export type Check = { name: string; pass: boolean; detail: string };

const OUTCOMES = ["succeeded", "failed", "expired"] as const;
const sample = (xs: string[]) => (xs.length ? ` e.g. ${xs.slice(0, 5).join("; ")}` : "");

type PaymentRow = {
  id: string;
  reference: string;
  idempotency_key: string | null;
  status: string;
  succeeded_at: Date | null;
  failed_at: Date | null;
  expired_at: Date | null;
  unresolved_at: Date | null;
};

type EventRow = { id: string; type: string; object_id: string; data: { object?: Record<string, unknown> } };

export async function paymentsOf(sql: Sql, merchantId: string): Promise<PaymentRow[]> {
  return sql<PaymentRow[]>`
    select id, reference, idempotency_key, status, succeeded_at, failed_at, expired_at, unresolved_at
    from payments where merchant_id = ${merchantId} and livemode = false`;
}

async function eventsOf(sql: Sql, merchantId: string): Promise<EventRow[]> {
  // `data` is json (kept as written): parsed here rather than by the driver.
  const rows = await sql<{ id: string; type: string; object_id: string; data: string }[]>`
    select id, type, object_id, data::text as data from events where merchant_id = ${merchantId} and livemode = false`;
  return rows.map((r) => ({ ...r, data: JSON.parse(r.data) as EventRow["data"] }));
}

/** 1: at most one payment per Idempotency-Key (reference = key), and the idempotency records agree. */
export async function onePaymentPerKey(sql: Sql, merchantId: string, results: KeyResult[]): Promise<Check> {
  const payments = await paymentsOf(sql, merchantId);
  const keys = new Set(results.map((r) => r.key));
  const perRef = new Map<string, number>();
  for (const p of payments) if (keys.has(p.reference)) perRef.set(p.reference, (perRef.get(p.reference) ?? 0) + 1);
  const duplicated = [...perRef].filter(([, n]) => n > 1).map(([k, n]) => `${k}×${n}`);
  const wrongKey = payments.filter((p) => keys.has(p.reference) && p.idempotency_key !== p.reference).map((p) => `${p.id} key ${p.idempotency_key}`);
  const records = await sql<{ key: string; state: string; response_status: number | null; response_body: string | null }[]>`
    select key, state, response_status, response_body from idempotency_keys
    where merchant_id = ${merchantId} and livemode = false and key in ${sql([...keys])}`;
  const byKey = new Map(payments.filter((p) => keys.has(p.reference)).map((p) => [p.reference, p.id]));
  const recordMismatch: string[] = [];
  let completed = 0;
  let inProgress = 0;
  for (const r of records) {
    if (r.state !== "completed") {
      inProgress++;
      continue;
    }
    completed++;
    if (r.response_status !== null && r.response_status < 300) {
      const id = (JSON.parse(r.response_body ?? "{}") as { id?: string }).id;
      if (id !== byKey.get(r.key)) recordMismatch.push(`${r.key}: stored answer ${id}, payment ${byKey.get(r.key) ?? "none"}`);
    }
  }
  const pass = duplicated.length === 0 && wrongKey.length === 0 && recordMismatch.length === 0;
  return {
    name: "at most one payment per idempotency key",
    pass,
    detail:
      `${keys.size} keys, ${perRef.size} with a payment, ${duplicated.length} with more than one; idempotency records: ` +
      `${completed} completed, ${inProgress} in progress, ${recordMismatch.length} whose stored answer names another payment` +
      sample([...duplicated, ...wrongKey, ...recordMismatch]),
  };
}

/** 2: every key answered with a 2xx has its payment, with the id the client was given. */
export async function everyAnsweredKeyHasItsPayment(sql: Sql, merchantId: string, results: KeyResult[]): Promise<Check> {
  const byRef = new Map((await paymentsOf(sql, merchantId)).map((p) => [p.reference, p]));
  const ok = results.filter((r) => r.status !== null && r.status >= 200 && r.status < 300);
  const missing = ok.filter((r) => !byRef.has(r.key)).map((r) => `${r.key} answered ${r.paymentId}, no payment`);
  const otherId = ok.filter((r) => byRef.has(r.key) && byRef.get(r.key)!.id !== r.paymentId).map((r) => `${r.key}: answered ${r.paymentId}, stored ${byRef.get(r.key)!.id}`);
  return {
    name: "every key that got a 2xx has its payment, same id",
    pass: missing.length === 0 && otherId.length === 0,
    detail: `${ok.length} keys got a 2xx; ${missing.length} without a payment, ${otherId.length} with another id${sample([...missing, ...otherId])}`,
  };
}

/** Not one of the five, but a precondition of reading them: every (valid) request ended in a 2xx. */
export function everyKeyAnswered(results: KeyResult[]): Check {
  const gaveUp = results.filter((r) => r.status === null);
  const refused = results.filter((r) => r.status !== null && (r.status < 200 || r.status >= 300));
  const codes: Record<string, number> = {};
  for (const r of refused) codes[`${r.status} ${r.code}`] = (codes[`${r.status} ${r.code}`] ?? 0) + 1;
  return {
    name: "every create got a final 2xx",
    pass: gaveUp.length === 0 && refused.length === 0,
    detail: `${results.length - gaveUp.length - refused.length}/${results.length} 2xx, ${refused.length} refused ${JSON.stringify(codes)}, ${gaveUp.length} gave up${sample([...gaveUp, ...refused].map((r) => r.key))}`,
  };
}

/**
 * 3: a payment in an outcome state has exactly one outcome event, of its state; others have none
 * (but a payment.expired before a success the provider confirmed late).
 */
export async function oneOutcomeEventEach(sql: Sql, merchantId: string): Promise<Check> {
  const payments = await paymentsOf(sql, merchantId);
  const counts = new Map<string, Map<string, number>>();
  for (const e of await eventsOf(sql, merchantId)) {
    const per = counts.get(e.object_id) ?? new Map<string, number>();
    per.set(e.type, (per.get(e.type) ?? 0) + 1);
    counts.set(e.object_id, per);
  }
  const bad: string[] = [];
  const byStatus: Record<string, number> = {};
  for (const p of payments) {
    byStatus[p.status] = (byStatus[p.status] ?? 0) + 1;
    const per = counts.get(p.id) ?? new Map<string, number>();
    for (const s of OUTCOMES) {
      const n = per.get(`payment.${s}`) ?? 0;
      // A success the provider confirms after expiry follows the payment's payment.expired.
      const ok = p.status === s ? n === 1 : n === 0 || (s === "expired" && p.status === "succeeded" && n === 1);
      if (!ok) bad.push(`${p.id} (${p.status}) has ${n} payment.${s}`);
    }
  }
  const inOutcome = payments.filter((p) => (OUTCOMES as readonly string[]).includes(p.status)).length;
  return {
    name: "every payment in an outcome state has exactly one outcome event",
    pass: bad.length === 0,
    detail: `${payments.length} payments ${JSON.stringify(byStatus)}; ${inOutcome} in an outcome state; ${bad.length} wrong${sample(bad)}`,
  };
}

/** 4: every event of the merchant reached the receiver at least once. */
export async function everyEventReceived(sql: Sql, merchantId: string, received: Map<string, number>): Promise<Check> {
  const events = await eventsOf(sql, merchantId);
  const missing = events.filter((e) => !received.has(e.id)).map((e) => `${e.id} ${e.type}`);
  const unknown = [...received.keys()].filter((id) => !events.some((e) => e.id === id));
  const twice = [...received.values()].filter((n) => n > 1).length;
  return {
    name: "every event reached the receiver at least once",
    pass: missing.length === 0 && unknown.length === 0,
    detail: `${events.length} events, ${events.length - missing.length} received, ${missing.length} missing, ${twice} received more than once, ${unknown.length} received that the database does not hold${sample([...missing, ...unknown])}`,
  };
}

/**
 * 5: no event for a rolled-back change. Each event's object exists, the payload is that object,
 * in the state the type names, and the object really is in that state with the same transition
 * time (a rolled-back transition followed by another would leave a different time). Every
 * delivery references an event of its merchant; no outbox work is left over.
 */
export async function noEventForRolledBackChange(sql: Sql, merchantId: string): Promise<Check> {
  const payments = new Map((await paymentsOf(sql, merchantId)).map((p) => [p.id, p]));
  const events = await eventsOf(sql, merchantId);
  const bad: string[] = [];
  for (const e of events) {
    const m = /^payment\.(succeeded|failed|expired|unresolved)$/.exec(e.type);
    if (!m) {
      bad.push(`${e.id}: unexpected type ${e.type}`);
      continue;
    }
    const state = m[1]! as "succeeded" | "failed" | "expired" | "unresolved";
    const p = payments.get(e.object_id);
    const obj = e.data.object ?? {};
    if (!p) {
      bad.push(`${e.id} ${e.type}: payment ${e.object_id} does not exist`);
      continue;
    }
    if (obj.id !== p.id) bad.push(`${e.id}: payload is ${String(obj.id)}, object_id ${p.id}`);
    if (obj.status !== state) bad.push(`${e.id} ${e.type}: payload status ${String(obj.status)}`);
    // Outcome states are final; unresolved is left only for an outcome.
    const passed = state === "unresolved" ? p.unresolved_at !== null : p.status === state;
    if (!passed) bad.push(`${e.id} ${e.type}: payment is ${p.status}`);
    const at = { succeeded: p.succeeded_at, failed: p.failed_at, expired: p.expired_at, unresolved: p.unresolved_at }[state];
    const said = (obj.status_transitions as Record<string, string | null> | undefined)?.[`${state}_at`];
    if (!at || !said || new Date(said).getTime() !== at.getTime()) bad.push(`${e.id} ${e.type}: payload ${state}_at ${said}, payment ${at?.toISOString() ?? "null"}`);
  }
  const [orphans] = await sql<{ n: number }[]>`
    select count(*)::int as n from webhook_deliveries d left join events e on e.id = d.event_id
    where d.merchant_id = ${merchantId} and (e.id is null or e.merchant_id <> d.merchant_id)`;
  const [outbox] = await sql<{ n: number }[]>`select count(*)::int as n from outbox`;
  if (orphans!.n > 0) bad.push(`${orphans!.n} deliveries reference no event of this merchant`);
  return {
    name: "no event for a rolled-back change",
    pass: bad.length === 0,
    detail: `${events.length} events checked against their payments; deliveries without their event: ${orphans!.n}; outbox rows left: ${outbox!.n}${sample(bad)}`,
  };
}

/** Delivery phase: every delivery of the merchant ended `delivered`. */
export async function everyDeliveryDelivered(sql: Sql, merchantId: string): Promise<Check> {
  const rows = await sql<{ status: string; n: number; attempts: number }[]>`
    select status, count(*)::int as n, coalesce(sum(attempt_count), 0)::int as attempts
    from webhook_deliveries where merchant_id = ${merchantId} group by status`;
  const by = Object.fromEntries(rows.map((r) => [r.status, r.n]));
  const attempts = rows.reduce((s, r) => s + r.attempts, 0);
  const total = rows.reduce((s, r) => s + r.n, 0);
  const notDelivered = await sql<{ id: string; status: string; attempt_count: number; next_attempt_at: Date | null }[]>`
    select id, status, attempt_count, next_attempt_at from webhook_deliveries
    where merchant_id = ${merchantId} and status <> 'delivered' order by id limit 5`;
  return {
    name: "every webhook delivery ended delivered",
    pass: total > 0 && (by.delivered ?? 0) === total,
    detail: `${total} deliveries ${JSON.stringify(by)}, ${attempts} attempts recorded${sample(notDelivered.map((d) => `${d.id} ${d.status} after ${d.attempt_count} attempts, next ${d.next_attempt_at?.toISOString() ?? "-"}`))}`,
  };
}

/**
 * Replay phase: a window replay naming an endpoint, killed half-way, asked for once and never
 * again, was carried on to its end by the restarted server: one replay to it, done, counting every event of the window once; one
 * delivery of each event to the endpoint it named, every one delivered and received.
 */
export async function windowReplayCarriedOn(
  sql: Sql,
  w: { endpointId: string; events: number; atKill: { status: string; events: number } | null; received: Map<string, number> },
): Promise<Check> {
  const replays = await sql<{ id: string; status: string; events: number; deliveries: number }[]>`
    select id, status, events, deliveries from event_replays where endpoint_id = ${w.endpointId}`;
  const [d] = await sql<{ n: number; events: number; delivered: number }[]>`
    select count(*)::int as n, count(distinct event_id)::int as events, count(*) filter (where status = 'delivered')::int as delivered
    from webhook_deliveries where endpoint_id = ${w.endpointId}`;
  const ids = await sql<{ event_id: string }[]>`select event_id from webhook_deliveries where endpoint_id = ${w.endpointId}`;
  const unreceived = ids.filter((r) => !w.received.has(r.event_id)).map((r) => r.event_id);
  const r = replays[0];
  const cutOff = w.atKill !== null && w.atKill.status === "running" && w.atKill.events < w.events;
  const finished = replays.length === 1 && r!.status === "done" && r!.events === w.events && r!.deliveries === w.events;
  const once = d!.n === w.events && d!.events === w.events && d!.delivered === w.events && unreceived.length === 0;
  return {
    name: "a window replay killed half-way was carried on to its end, each event queued once",
    pass: cutOff && finished && once,
    detail:
      `killed with ${w.atKill ? `${w.atKill.events} of ${w.events} events queued (${w.atKill.status})` : "no progress seen"}; ` +
      `replays ${JSON.stringify(replays.map((x) => ({ status: x.status, events: x.events, deliveries: x.deliveries })))}; ` +
      `deliveries to its endpoint ${d!.n} for ${d!.events} events, ${d!.delivered} delivered, ${unreceived.length} not received${sample(unreceived)}`,
  };
}

/**
 * 6: the output of every server of the run holds no customer's number, in any form it is written
 * in (`263…`, `0…`, `+263 …`: each holds the national number): the faults a crash makes (a query
 * cut off, PostgreSQL gone) are logged with their queries, never the queries' parameters.
 */
export function noCustomerNumberLogged(serverOutput: string, msisdns: readonly string[]): Check {
  const national = [...new Set(msisdns)].map((m) => m.replace(/^263/, ""));
  const lines = serverOutput.split("\n");
  const found = lines.filter((line) => national.some((n) => line.includes(n)));
  const errors = lines.filter((line) => line.startsWith('{"level":"error"')).length;
  return {
    name: "no customer number in the servers' output",
    pass: found.length === 0,
    detail: `${lines.length} lines (${errors} errors logged) searched for ${national.length} numbers; ${found.length} lines hold one${sample(found.map((l) => l.slice(0, 200)))}`,
  };
}
