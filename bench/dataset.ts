/**
 * The list dataset: N payments for one merchant, made in SQL with generate_series.
 *
 * Ids are real payment ids: `pay_` + 10 chars of millisecond time + 16 chars, lowercase Crockford
 * base32, exactly what server/domain/ids.ts makes (the 16 "random" chars are md5 hex digits, which
 * are all in that alphabet). Rows are one second apart, ending when the dataset is made, so
 * ordering by id is ordering by created_at, as in production.
 *
 * Secondary indexes are dropped and rebuilt around the insert (in one transaction, from their own
 * `pg_get_indexdef`), which is several times faster than maintaining six indexes row by row.
 */
import type { Sql } from "postgres";
import { idTime, isId } from "@/server/domain/ids";

const ALPHABET = "0123456789abcdefghjkmnpqrstvwxyz";
/** The triggers on `payments` that mark the overview's stored days changed (migration 0027). */
export const DAY_TRIGGERS = ["payments_day_inserted", "payments_day_updated", "payments_day_deleted"];

/** SQL for the 10-char base32 time prefix of a bigint millisecond expression. */
export function encodeTimeSql(ms: string): string {
  const chars = Array.from({ length: 10 }, (_, k) => `substr('${ALPHABET}', ((${ms} >> ${5 * (9 - k)}) & 31)::int + 1, 1)`);
  return chars.join(" || ");
}

export type Dataset = { rows: number; built: boolean; seconds: number };

export async function countDataset(sql: Sql, merchantId: string): Promise<number> {
  const [row] = await sql<{ n: number }[]>`select count(*)::int as n from payments where merchant_id = ${merchantId} and livemode = false`;
  return row?.n ?? 0;
}

export async function ensureDataset(sql: Sql, merchantId: string, rows: number, log: (s: string) => void): Promise<Dataset> {
  const existing = await countDataset(sql, merchantId);
  if (existing === rows) return { rows, built: false, seconds: 0 };

  const started = performance.now();
  log(`building the list dataset: ${rows.toLocaleString("en")} payments (found ${existing.toLocaleString("en")})…`);
  const endMs = Date.now() - 60_000;
  await sql.begin(async (tx) => {
    await tx`set local maintenance_work_mem = '512MB'`;
    await tx`set local work_mem = '64MB'`;
    await tx`set local synchronous_commit = off`;
    await tx`set local jit = off`;
    // History written at once: the overview's day triggers would mark each row's day as changed
    // late, one row per payment. Its stored days are dropped with the rows instead.
    for (const t of DAY_TRIGGERS) await tx.unsafe(`alter table payments disable trigger ${t}`);
    await tx`delete from payments where merchant_id = ${merchantId}`;
    await tx`delete from payment_day_totals where merchant_id = ${merchantId}`;
    await tx`delete from payment_day_changes where merchant_id = ${merchantId}`;
    const indexes = await tx<{ name: string; def: string }[]>`
      select i.indexrelid::regclass::text as name, pg_get_indexdef(i.indexrelid) as def
      from pg_index i where i.indrelid = 'payments'::regclass and not i.indisprimary`;
    for (const ix of indexes) await tx.unsafe(`drop index ${ix.name}`);

    const ms = `(${endMs}::bigint - (${rows} - i)::bigint * 1000)`;
    await tx.unsafe(`
      insert into payments (
        id, merchant_id, livemode, amount, currency, method, reference, customer_msisdn, network,
        fee, fee_bearer, charged_amount, status, failure_code, failure_message, provider,
        provider_reference, metadata, idempotency_key, prompt_sent_at, expires_at,
        succeeded_at, failed_at, expired_at, created_at, updated_at, settlement_id)
      select
        'pay_' || ${encodeTimeSql("g.ms")} || substr(md5(g.i::text), 1, 16),
        $1, false, g.amount, case when g.i % 5 = 0 then 'ZWG' else 'USD' end, 'wallet',
        'INV-' || lpad(g.i::text, 8, '0'),
        '26377' || lpad((g.i % 10000000)::text, 7, '0'), 'ecocash',
        greatest((g.amount * 150 + 5000) / 10000, 1), 'merchant', g.amount,
        g.status,
        case when g.status = 'failed' then 'insufficient_funds' end,
        case when g.status = 'failed' then 'The customer does not have enough funds.' end,
        'sandbox', 'SBX' || upper(substr(md5('p' || g.i::text), 1, 20)), '{}'::jsonb,
        'bench-' || g.i::text,
        g.at, g.at + interval '180 seconds',
        case when g.status = 'succeeded' then g.at + interval '20 seconds' end,
        case when g.status = 'failed' then g.at + interval '15 seconds' end,
        case when g.status = 'expired' then g.at + interval '180 seconds' end,
        g.at, g.at + interval '20 seconds',
        -- History: paid out long ago, so the server's daily settlement run has nothing to take
        -- while phases are measured.
        case when g.status = 'succeeded' then 'stl_bench_dataset' end
      from (
        select i, ms, timestamptz 'epoch' + ms * interval '1 millisecond' as at, (100 + (i::bigint * 7919) % 100000)::int as amount,
          case when i % 20 < 14 then 'succeeded' when i % 20 < 17 then 'failed' else 'expired' end as status
        from (select i, ${ms} as ms from generate_series(1, ${rows}) as i) s
      ) g`, [merchantId]);
    for (const ix of indexes) await tx.unsafe(ix.def);
    for (const t of DAY_TRIGGERS) await tx.unsafe(`alter table payments enable trigger ${t}`);
  });
  await sql`vacuum (analyze) payments`;

  // The SQL encoding must agree with newId(): check a few rows' ids against their created_at.
  const sample = await sql<{ id: string; created_at: Date }[]>`
    select id, created_at from payments where merchant_id = ${merchantId} order by random() limit 20`;
  for (const r of sample) {
    if (!isId("payment", r.id) || idTime(r.id).getTime() !== r.created_at.getTime()) {
      throw new Error(`dataset id ${r.id} does not encode its created_at ${r.created_at.toISOString()}`);
    }
  }
  return { rows, built: true, seconds: (performance.now() - started) / 1000 };
}
