/**
 * The timers benchmark (the lifecycle's): N payments awaiting their customers, with expiries
 * due in alternate windows (`alternateSchedule`), for the local runner inside the server under
 * test to expire while the API takes creates. Rows are made in SQL (ids encode created_at as
 * newId() does); the sandbox number …03 never answers, so each expiry asks the provider, hears
 * "pending" and expires.
 */
import type { Sql } from "postgres";
import { encodeTimeSql } from "./dataset";

export type Lateness = { expired: number; notExpired: number; p50: number; p99: number; max: number };

/**
 * When the expiries fall due: in `slots` windows of `slotMs`, one every `periodMs`, `perSlot` to a
 * window and evenly spread inside it. Between two windows come as long a stretch with none due
 * (after `settleMs` for the late ones), in which the bench measures the same creates without
 * timers: the two kinds of round alternate, so a change in the machine's speed reaches both alike.
 */
export type ExpirySchedule = { count: number; slots: number; perSlot: number; slotMs: number; settleMs: number; periodMs: number };

/** `count` expiries due at `perSecond` inside windows of `slotMs`, each window followed by `settleMs`, a window without, and `settleMs` again. */
export function alternateSchedule(count: number, perSecond: number, slotMs: number, settleMs: number): ExpirySchedule {
  const perSlot = Math.max(1, Math.round((perSecond * slotMs) / 1000));
  return { count, slots: Math.ceil(count / perSlot), perSlot, slotMs, settleMs, periodMs: 2 * (slotMs + settleMs) };
}

/** Milliseconds from the first window's start to expiry `i`'s due time. */
export function dueOffsetMs(s: ExpirySchedule, i: number): number {
  return Math.floor(i / s.perSlot) * s.periodMs + Math.floor(((i % s.perSlot) * s.slotMs) / s.perSlot);
}

/** When the windows with expiries (`on`) and those without (`off`) start, in ms from the first window's start. */
export function windowStarts(s: ExpirySchedule): { on: number; off: number }[] {
  return Array.from({ length: s.slots }, (_, k) => ({ on: k * s.periodMs, off: k * s.periodMs + s.slotMs + s.settleMs }));
}

/** Inserts `s.count` awaiting payments due as `s` says, its first window starting at `firstDue`. */
export async function seedExpiries(sql: Sql, merchantId: string, s: ExpirySchedule, firstDue: Date): Promise<void> {
  await sql`delete from payments where merchant_id = ${merchantId}`;
  const createdMs = Date.now() - 60_000;
  const firstMs = firstDue.getTime();
  await sql.unsafe(
    `insert into payments (
       id, merchant_id, livemode, amount, currency, method, reference, customer_msisdn, network,
       fee, fee_bearer, charged_amount, status, provider, provider_reference, metadata,
       prompt_sent_at, expires_at, created_at, updated_at)
     select
       'pay_' || ${encodeTimeSql(`${createdMs}::bigint`)} || substr(md5(random()::text || g.n::text), 1, 16),
       $1, false, 1000, 'USD', 'wallet', 'timer-' || (g.n - 1) || '-' || ${firstMs}, '263770000003', 'ecocash',
       15, 'merchant', 1000, 'awaiting_customer', 'sandbox', null, '{}'::jsonb,
       to_timestamp(${createdMs} / 1000.0),
       to_timestamp((${firstMs}::bigint + g.offset_ms) / 1000.0),
       to_timestamp(${createdMs} / 1000.0), to_timestamp(${createdMs} / 1000.0)
     from unnest($2::bigint[]) with ordinality as g(offset_ms, n)`,
    // Each due time from dueOffsetMs, the one formula the bench's windows are timed by.
    [merchantId, Array.from({ length: s.count }, (_, i) => dueOffsetMs(s, i))],
  );
}

/** How late each expiry landed: expired_at − expires_at, in ms. */
export async function expiryLateness(sql: Sql, merchantId: string): Promise<Lateness> {
  const rows = await sql<{ late: number }[]>`
    select (extract(epoch from (expired_at - expires_at)) * 1000)::float8 as late
    from payments where merchant_id = ${merchantId} and status = 'expired' order by 1`;
  const [pending] = await sql<{ n: number }[]>`
    select count(*)::int as n from payments where merchant_id = ${merchantId} and status <> 'expired'`;
  const late = rows.map((r) => r.late);
  const pct = (p: number) => (late.length ? late[Math.min(late.length - 1, Math.ceil((p / 100) * late.length) - 1)]! : Number.NaN);
  return { expired: late.length, notExpired: pending?.n ?? 0, p50: pct(50), p99: pct(99), max: late.at(-1) ?? Number.NaN };
}
