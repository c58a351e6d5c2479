/**
 * "Zero rows written": a fingerprint of every table as it concerns the fuzz merchant (row count
 * and a hash of the rows' contents, so updates show as well as inserts and deletes), taken before
 * and after each target.
 *
 * What may change, and why:
 * - `api_keys.last_used_at`: authentication stamps it (to the minute, off the request path) for
 *   any request that presents a valid key, refused or not. It is left out of the hash.
 * - `idempotency_keys`: a request that passes validation and is then refused by the service (an
 *   unknown id in the path, say) has its 4xx stored so that a retry with the same key replays the
 *   same answer (DESIGN.md "Idempotency"; only 5xx are not stored, and validation runs before the
 *   key is claimed, so a request refused by validation stores nothing). A new record is allowed
 *   only when it is completed, holds a 4xx, and holds the very body the fuzzer was answered with
 *   for that key. An `in_progress` record left behind, or any other, is a failure.
 * - Rate-limit counters live in the server's memory (the run starts it without REDIS_URL).
 * Tables with no merchant column (the outbox, provider callbacks) are fingerprinted whole: the
 * fuzz database is the run's own and quiet (the run waits for it to settle before starting).
 */
import type { Sql } from "postgres";

export type Snapshot = { tables: Map<string, { rows: number; hash: string }>; idempotency: Map<string, { state: string; status: number | null; body: string | null }> };

/** How each table's rows belong to a merchant; a table not listed here and without merchant_id is taken whole. */
const VIA: Record<string, string> = {
  merchants: "t.id = $1",
  settlement_lines: "t.settlement_id in (select id from settlements where merchant_id = $1)",
  webhook_attempts: "t.delivery_id in (select id from webhook_deliveries where merchant_id = $1)",
};
const LEFT_OUT: Record<string, string[]> = { api_keys: ["last_used_at"] };

/**
 * `livemode` narrows to one environment (tables that have the column); `ownedOnly` leaves out
 * tables that cannot be tied to the merchant, for a database other tests write to at the same time.
 */
export async function snapshot(sql: Sql, merchantId: string, opts: { livemode?: boolean; ownedOnly?: boolean } = {}): Promise<Snapshot> {
  const tables = await sql<{ table_name: string; scoped: boolean; has_livemode: boolean }[]>`
    select c.table_name, bool_or(k.column_name = 'merchant_id') as scoped, bool_or(k.column_name = 'livemode') as has_livemode
    from information_schema.tables c
    left join information_schema.columns k on k.table_schema = c.table_schema and k.table_name = c.table_name
    where c.table_schema = 'public' and c.table_type = 'BASE TABLE' and c.table_name <> 'idempotency_keys'
    group by c.table_name order by c.table_name`;
  const out: Snapshot = { tables: new Map(), idempotency: new Map() };
  for (const { table_name: name, scoped, has_livemode } of tables) {
    if (opts.ownedOnly && !VIA[name] && !scoped) continue;
    let where = VIA[name] ?? (scoped ? "t.merchant_id = $1" : "true");
    if (opts.livemode !== undefined && has_livemode) where += ` and t.livemode = ${opts.livemode}`;
    const row = (LEFT_OUT[name] ?? []).reduce((expr, col) => `${expr} - '${col}'`, "to_jsonb(t)");
    const usesParam = where.includes("$1");
    const [r] = await sql.unsafe<{ rows: number; hash: string | null }[]>(
      `select count(*)::int as rows, md5(coalesce(string_agg((${row})::text, ',' order by (${row})::text), '')) as hash from "${name}" t where ${where}`,
      usesParam ? [merchantId] : [],
    );
    out.tables.set(name, { rows: r!.rows, hash: r!.hash ?? "" });
  }
  const keys = await sql<{ key: string; livemode: boolean; state: string; response_status: number | null; response_body: string | null }[]>`
    select key, livemode, state, response_status, response_body from idempotency_keys where merchant_id = ${merchantId}`;
  for (const k of keys) if (opts.livemode === undefined || k.livemode === opts.livemode) out.idempotency.set(`${k.livemode ? "live" : "test"}:${k.key}`, { state: k.state, status: k.response_status, body: k.response_body });
  return out;
}

/** Bodies the fuzzer was answered with, per Idempotency-Key it sent (`test:key` or `live:key`). */
export type Answered = Map<string, Set<string>>;

/** What changed that may not: "payments +1", "webhook_endpoints changed", "idempotency_keys: …". */
export function unexpectedWrites(before: Snapshot, after: Snapshot, answered: Answered): string[] {
  const out: string[] = [];
  for (const [name, a] of after.tables) {
    const b = before.tables.get(name);
    if (!b) out.push(`${name} appeared`);
    else if (a.rows !== b.rows) out.push(`${name} ${a.rows > b.rows ? "+" : ""}${a.rows - b.rows}`);
    else if (a.hash !== b.hash) out.push(`${name} changed`);
  }
  for (const [key, rec] of after.idempotency) {
    const prev = before.idempotency.get(key);
    if (prev) {
      if (prev.state !== rec.state || prev.status !== rec.status || prev.body !== rec.body) out.push(`idempotency_keys: ${key} changed`);
      continue;
    }
    const bodies = answered.get(key);
    const fine = rec.state === "completed" && rec.status !== null && rec.status >= 400 && rec.status < 500 && rec.body !== null && bodies?.has(rec.body);
    if (!fine) out.push(`idempotency_keys: ${key.slice(0, 60)} stored ${rec.state} ${rec.status ?? ""}${bodies ? "" : " for a key never answered"}`);
  }
  for (const key of before.idempotency.keys()) if (!after.idempotency.has(key)) out.push(`idempotency_keys: ${key.slice(0, 60)} deleted`);
  return out;
}

export function sameSnapshot(a: Snapshot, b: Snapshot): boolean {
  return unexpectedWrites(a, b, new Map()).length === 0;
}
