/**
 * The timers benchmark (the lifecycle's): N payments awaiting their customers, with expiries
 * spread over a window, for the local runner inside the server under test to expire while the
 * API takes creates. Rows are made in SQL (ids encode created_at as newId() does); the sandbox
 * number …03 never answers, so each expiry asks the provider, hears "pending" and expires.
 */
import type { Sql } from "postgres";
import { encodeTimeSql } from "./dataset";

export type Lateness = { expired: number; notExpired: number; p50: number; p99: number; max: number };

/** Inserts `count` awaiting payments whose expiries run from `leadMs` to `leadMs + spreadMs` from now. */
export async function seedExpiries(sql: Sql, merchantId: string, count: number, leadMs: number, spreadMs: number): Promise<{ lastDue: Date }> {
  await sql`delete from payments where merchant_id = ${merchantId}`;
  const nowMs = Date.now();
  const createdMs = nowMs - 60_000;
  await sql.unsafe(
    `insert into payments (
       id, merchant_id, livemode, amount, currency, method, reference, customer_msisdn, network,
       fee, fee_bearer, charged_amount, status, provider, provider_reference, metadata,
       prompt_sent_at, expires_at, created_at, updated_at)
     select
       'pay_' || ${encodeTimeSql(`${createdMs}::bigint`)} || substr(md5(random()::text || g.i::text), 1, 16),
       $1, false, 1000, 'USD', 'wallet', 'timer-' || g.i || '-' || ${nowMs}, '263770000003', 'ecocash',
       15, 'merchant', 1000, 'awaiting_customer', 'sandbox', null, '{}'::jsonb,
       to_timestamp(${createdMs} / 1000.0),
       to_timestamp((${nowMs + leadMs}::bigint + (g.i::bigint * ${spreadMs}) / ${count}) / 1000.0),
       to_timestamp(${createdMs} / 1000.0), to_timestamp(${createdMs} / 1000.0)
     from generate_series(0, ${count - 1}) as g(i)`,
    [merchantId],
  );
  return { lastDue: new Date(nowMs + leadMs + spreadMs) };
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
