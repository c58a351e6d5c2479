import { and, asc, eq, getTableColumns, inArray, isNotNull, isNull, lte, or, sql, type SQL } from "drizzle-orm";
import type { AnyPgColumn, PgTable } from "drizzle-orm/pg-core";
import { literalIn } from "@/db/literal";
import { rowsOf } from "@/db/rows";
import { eventReplays, outbox, payments, refunds, settlements, webhookDeliveries, webhookEndpoints, type EventReplay, type Payment } from "@/db/schema";
import type { Db } from "@/db/client";
import { DELIVERY_LEASE_MS, REPLAY_LEASE_MS } from "@/server/domain/webhooks";
import { LOADED_ENDPOINT, type Loaded } from "@/server/services/webhooks/attempt-delivery";

export const LEASE_MS = 30_000;

/**
 * Which rows are due work of each kind: the predicates of the partial indexes (db/schema), written
 * literally (see literalIn) so that both the claims and nextDueAt's reads can use those indexes.
 */
const PENDING = {
  expiry: literalIn(payments.status, "awaiting_customer"),
  reconcile: literalIn(payments.status, "unknown", "unresolved"),
  refunds: literalIn(refunds.status, "pending"),
  payouts: literalIn(settlements.status, "pending"),
  deliveries: literalIn(webhookDeliveries.status, "pending"),
  replays: literalIn(eventReplays.status, "running"),
};

/** A table whose rows are due work, with its id and merchant columns. */
type Leased = { table: typeof payments | typeof refunds | typeof webhookDeliveries | typeof eventReplays; id: AnyPgColumn; merchantId: AnyPgColumn };
type Claim = { due: SQL | undefined; order: AnyPgColumn; lease: Record<string, Date>; limit: number; merchantId?: string };

/**
 * The one claim of due work: up to `limit` rows matching `due`, in `order`, locked with SKIP
 * LOCKED (another instance's claim is skipped, not waited for) and leased by `lease`, which pushes
 * their due time forward. A worker that dies mid-way loses nothing: the lease runs out and the work
 * is due again. Used by the local runner and the Inngest sweeper alike. `merchantId` confines a
 * worker to one merchant (tests share one database across merchants). Returns the UPDATE, for
 * the caller to say what it returns.
 */
function lease(db: Db, t: Leased, q: Claim) {
  const candidates = db
    .select({ id: t.id })
    .from(t.table)
    .where(q.merchantId ? and(q.due, eq(t.merchantId, q.merchantId)) : q.due)
    .orderBy(asc(q.order))
    .limit(q.limit)
    .for("update", { skipLocked: true });
  return db.update(t.table).set(q.lease).where(inArray(t.id, candidates));
}

/** The ids of the rows a claim leased. */
async function claimLeased(db: Db, t: Leased, q: Claim): Promise<string[]> {
  const claimed = await lease(db, t, q).returning({ id: t.id });
  return claimed.map((r) => r.id as string);
}

/**
 * Claims up to `limit` due payments of one kind for this worker, leased by pushing `next_check_at`
 * forward. Returns the claimed rows as the lease left them, so that the work needs no read of its own.
 */
export async function claimDuePayments(
  db: Db,
  kind: "expiry" | "reconcile",
  now: Date,
  limit: number,
  merchantId?: string,
): Promise<Payment[]> {
  const due =
    kind === "expiry"
      ? and(PENDING.expiry, lte(payments.expiresAt, now), or(isNull(payments.nextCheckAt), lte(payments.nextCheckAt, now)))
      : and(PENDING.reconcile, lte(payments.nextCheckAt, now));
  const claim = lease(db, { table: payments, id: payments.id, merchantId: payments.merchantId }, {
    due,
    order: kind === "expiry" ? payments.expiresAt : payments.nextCheckAt,
    lease: { nextCheckAt: new Date(now.getTime() + LEASE_MS) },
    limit,
    merchantId,
  });
  return claim.returning(getTableColumns(payments));
}

/**
 * Claims pending refunds due at `now` for this worker, leased by pushing `next_check_at` LEASE_MS
 * ahead (which outlasts a submission's timeout). `overdueMs` leaves recently due refunds to the
 * Inngest function that scheduled them, as for deliveries.
 */
export async function claimDueRefunds(db: Db, now: Date, limit: number, opts: { merchantId?: string; overdueMs?: number } = {}): Promise<string[]> {
  return claimLeased(db, { table: refunds, id: refunds.id, merchantId: refunds.merchantId }, {
    due: and(PENDING.refunds, lte(refunds.nextCheckAt, new Date(now.getTime() - (opts.overdueMs ?? 0)))),
    order: refunds.nextCheckAt,
    lease: { nextCheckAt: new Date(now.getTime() + LEASE_MS) },
    limit,
    merchantId: opts.merchantId,
  });
}

/**
 * Claims window replays whose lease ran out (the process running them died, or handed them back),
 * leased for REPLAY_LEASE_MS, which each batch the claimer queues renews. Returns the rows as the
 * lease left them: each is carried on from its cursor.
 */
export async function claimStalledReplays(db: Db, now: Date, limit: number, merchantId?: string): Promise<EventReplay[]> {
  const claim = lease(db, { table: eventReplays, id: eventReplays.id, merchantId: eventReplays.merchantId }, {
    due: and(PENDING.replays, lte(eventReplays.leaseUntil, now)),
    order: eventReplays.leaseUntil,
    lease: { leaseUntil: new Date(now.getTime() + REPLAY_LEASE_MS) },
    limit,
    merchantId,
  });
  return claim.returning(getTableColumns(eventReplays));
}

export type DueTimes = {
  /** The earliest of the kinds below: when a runner must next look. */
  work: Date | null;
  /** Webhook deliveries, apart: a runner whose delivery slots are full takes more as attempts finish rather than by waking. */
  deliveries: Date | null;
  kinds: { expiry: Date | null; reconcile: Date | null; refunds: Date | null; outbox: Date | null; payouts: Date | null; replays: Date | null };
};

/**
 * The earliest `column` among the rows `pending` selects: the first entry of the partial index
 * on that column, read as `ORDER BY … LIMIT 1`. Written as `min()`, the planner may aggregate
 * instead, reading every entry of the index, whenever the statistics say it holds few (a table
 * analysed before its due rows piled up): tens of milliseconds a pass, every pass.
 */
const earliest = (column: AnyPgColumn, table: PgTable, pending?: SQL) =>
  sql`(select ${column} from ${table} where ${and(pending, isNotNull(column))} order by ${column} limit 1)`;

/**
 * When each kind of due work next falls, in one round trip, each part on its partial index:
 * payments to expire or reconcile, pending refunds, unrelayed events, test payouts, window replays
 * whose lease runs out and webhook deliveries. A runner skips the claims of kinds with nothing due, so an idle pass costs this one read.
 */
export async function nextDueAt(db: Db, now: Date): Promise<DueTimes> {
  type Row = Record<"expiry" | "reconcile" | "refunds" | "outbox" | "payouts" | "replays" | "deliveries", Date | string | null>;
  // An expiry being run holds a lease in next_check_at (see claimDuePayments): it is not due again
  // until the lease runs out, and a runner that counted it would pass again at once, and again.
  const unleased = or(isNull(payments.nextCheckAt), lte(payments.nextCheckAt, now));
  const [row] = rowsOf<Row>(
    await db.execute(sql`select
      ${earliest(payments.expiresAt, payments, and(PENDING.expiry, unleased))} as expiry,
      ${earliest(payments.nextCheckAt, payments, PENDING.reconcile)} as reconcile,
      ${earliest(refunds.nextCheckAt, refunds, PENDING.refunds)} as refunds,
      ${earliest(outbox.createdAt, outbox)} as outbox,
      ${earliest(settlements.payAfter, settlements, PENDING.payouts)} as payouts,
      ${earliest(eventReplays.leaseUntil, eventReplays, PENDING.replays)} as replays,
      ${earliest(webhookDeliveries.nextAttemptAt, webhookDeliveries, PENDING.deliveries)} as deliveries`),
  );
  const at = (v: Date | string | null | undefined) => (v ? new Date(v) : null);
  const kinds = { expiry: at(row?.expiry), reconcile: at(row?.reconcile), refunds: at(row?.refunds), outbox: at(row?.outbox), payouts: at(row?.payouts), replays: at(row?.replays) };
  const times = Object.values(kinds).filter((d) => d !== null).map((d) => d.getTime());
  return { work: times.length ? new Date(Math.min(...times)) : null, deliveries: at(row?.deliveries), kinds };
}

/**
 * Claims pending deliveries due at `now` (SKIP LOCKED, leased by pushing `next_attempt_at` past the
 * attempt), oldest due first. `overdueMs` leaves recently due work to whoever scheduled it: the
 * Inngest sweeper only takes deliveries whose own function should have run minutes ago.
 */
export async function claimDueDeliveries(
  db: Db,
  now: Date,
  limit: number,
  opts: { merchantId?: string; overdueMs?: number } = {},
): Promise<string[]> {
  const dueBy = new Date(now.getTime() - (opts.overdueMs ?? 0));
  return claimLeased(db, { table: webhookDeliveries, id: webhookDeliveries.id, merchantId: webhookDeliveries.merchantId }, {
    due: and(PENDING.deliveries, lte(webhookDeliveries.nextAttemptAt, dueBy)),
    order: webhookDeliveries.nextAttemptAt,
    lease: { nextAttemptAt: new Date(now.getTime() + DELIVERY_LEASE_MS) },
    limit,
    merchantId: opts.merchantId,
  });
}

/**
 * How many deliveries of one endpoint a worker may hold (claimed, not yet finished), and how many
 * of each it holds now.
 */
export type EndpointShare = { limit: number; held: ReadonlyMap<string, number> };

/**
 * claimDueDeliveries with no endpoint past its share. Oldest due first alone, an endpoint that
 * answers nothing, with a backlog, would take every slot while other endpoints' webhooks wait. An
 * endpoint already holding its limit is skipped (the index scan reads past its rows), and one
 * holding fewer gets what it lacks at most: the claim reads the oldest `limit` due rows of
 * endpoints with room (locking them, SKIP LOCKED, for the statement) and leases those within each
 * endpoint's room. `more`: due rows were left, held back by an endpoint's share or past what it read.
 */
export async function claimDueDeliveriesSharing(
  db: Db,
  now: Date,
  limit: number,
  opts: { merchantId?: string; share: EndpointShare },
): Promise<{ ids: string[]; more: boolean }> {
  const d = webhookDeliveries;
  const { share } = opts;
  const rooms = JSON.stringify(Object.fromEntries([...share.held].map(([endpoint, n]) => [endpoint, Math.max(0, share.limit - n)])));
  const room = (endpoint: SQL) => sql`coalesce((${rooms}::jsonb ->> ${endpoint})::int, ${share.limit}::int)`;
  const result = await db.execute(sql`
    with candidates as (
      select ${d.id} as id, ${d.endpointId} as endpoint_id, ${d.nextAttemptAt} as due_at
      from ${d}
      where ${PENDING.deliveries} and ${d.nextAttemptAt} <= ${now.toISOString()}::timestamptz
        ${opts.merchantId ? sql`and ${d.merchantId} = ${opts.merchantId}` : sql``}
        and ${room(sql`${d.endpointId}`)} > 0
      order by ${d.nextAttemptAt}
      limit ${limit}
      for update skip locked
    ), ranked as (
      select id, due_at, row_number() over (partition by endpoint_id order by due_at) <= ${room(sql`endpoint_id`)} as fits
      from candidates
    ), leased as (
      update ${d} set next_attempt_at = ${new Date(now.getTime() + DELIVERY_LEASE_MS).toISOString()}::timestamptz
      where ${d.id} in (select id from ranked where fits)
      returning ${d.id} as id
    )
    select coalesce((select json_agg(id) from leased), '[]'::json) as ids,
      (select count(*) from candidates)::int as read`);
  const [row] = rowsOf<{ ids: string[] | string; read: number }>(result);
  // json arrives parsed or as text, by driver.
  const ids: string[] = typeof row?.ids === "string" ? (JSON.parse(row.ids) as string[]) : (row?.ids ?? []);
  const read = row?.read ?? 0;
  return { ids, more: read === limit || read > ids.length };
}

/** Claims one delivery if it is due (the Inngest function's step); false when not due or leased. */
export async function claimDelivery(db: Db, id: string, now: Date): Promise<boolean> {
  const claimed = await db
    .update(webhookDeliveries)
    .set({ nextAttemptAt: new Date(now.getTime() + DELIVERY_LEASE_MS) })
    .where(and(eq(webhookDeliveries.id, id), eq(webhookDeliveries.status, "pending"), lte(webhookDeliveries.nextAttemptAt, now)))
    .returning({ id: webhookDeliveries.id });
  return claimed.length === 1;
}

/**
 * Renews the lease of a delivery claimed earlier (see FRESH_CLAIM_MS), if it is still the
 * claimer's: pending, not attempted since, and still leased until the end its claim set (a lease
 * that ran out and was claimed again has another). Returns the new lease's end and the endpoint as
 * it is now, or null: the delivery is no longer the claimer's to send.
 */
export async function renewDeliveryLease(
  db: Db,
  delivery: Pick<Loaded["delivery"], "id" | "attemptCount" | "nextAttemptAt">,
  now: Date,
): Promise<Pick<Loaded, "endpoint"> & { leasedUntil: Date } | null> {
  if (!delivery.nextAttemptAt) return null;
  const d = webhookDeliveries;
  const w = webhookEndpoints;
  const [row] = await db
    .update(d)
    .set({ nextAttemptAt: new Date(now.getTime() + DELIVERY_LEASE_MS) })
    .from(w)
    .where(and(eq(d.id, delivery.id), PENDING.deliveries, eq(d.attemptCount, delivery.attemptCount), eq(d.nextAttemptAt, delivery.nextAttemptAt), eq(w.id, d.endpointId)))
    .returning({
      leasedUntil: d.nextAttemptAt,
      endpoint: LOADED_ENDPOINT,
    });
  return row ? { leasedUntil: row.leasedUntil!, endpoint: row.endpoint } : null;
}
