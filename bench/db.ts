/** The bench's own PostgreSQL work: the database, the write counters, the WAL. */
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import postgres, { type Sql } from "postgres";

export const DEFAULT_SERVER = "postgres://postgres@127.0.0.1:5432";
export const DEFAULT_DATABASE = "mari_bench";

export function connect(url: string, max = 2): Sql {
  return postgres(url, { max, onnotice: () => {}, types: { bigint: postgres.BigInt } });
}

/** DATABASE_URL if set; otherwise `database` (`mari_bench`) on the local server, created when missing. */
export async function resolveDatabaseUrl(given: string | undefined, database = DEFAULT_DATABASE): Promise<string> {
  if (given) return given;
  const admin = connect(`${DEFAULT_SERVER}/postgres`, 1);
  try {
    const [found] = await admin`select 1 as one from pg_database where datname = ${database}`;
    if (!found) await admin.unsafe(`create database ${database}`);
  } finally {
    await admin.end();
  }
  return `${DEFAULT_SERVER}/${database}`;
}

export type WriteSnapshot = {
  lsn: string;
  /** Sum of n_tup_ins + n_tup_upd + n_tup_del over this database's tables. */
  tuples: number;
  perTable: Record<string, number>;
};

export async function writeSnapshot(sql: Sql): Promise<WriteSnapshot> {
  await sql`select pg_stat_force_next_flush()`;
  await sql`select pg_stat_clear_snapshot()`;
  const rows = await sql<{ relname: string; n: number }[]>`
    select relname, (n_tup_ins + n_tup_upd + n_tup_del)::float8 as n from pg_stat_user_tables`;
  const [wal] = await sql<{ lsn: string }[]>`select pg_current_wal_lsn()::text as lsn`;
  const perTable = Object.fromEntries(rows.map((r) => [r.relname, r.n]));
  return { lsn: wal!.lsn, tuples: rows.reduce((s, r) => s + r.n, 0), perTable };
}

export async function walBytes(sql: Sql, from: string, to: string): Promise<number> {
  const [row] = await sql<{ n: number }[]>`select pg_wal_lsn_diff(${to}::pg_lsn, ${from}::pg_lsn)::float8 as n`;
  return row!.n;
}

export function tableDeltas(before: WriteSnapshot, after: WriteSnapshot): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [t, n] of Object.entries(after.perTable)) {
    const d = n - (before.perTable[t] ?? 0);
    if (d !== 0) out[t] = d;
  }
  return out;
}

export type WalRecords = { total: number; userRelations: number; catalogs: number } | { unavailable: string };

/**
 * WAL is cluster-wide, and other databases on a shared server write too. pg_waldump tells which
 * records touched this database's relations (`rel <tablespace>/<database oid>/<relfilenode>`).
 * Needs read access to the server's pg_wal (same machine); otherwise reports why not.
 */
export async function walRecords(sql: Sql, from: string, to: string): Promise<WalRecords> {
  try {
    const [info] = await sql<{ dir: string; oid: number; major: number; tli: number }[]>`
      select current_setting('data_directory') as dir,
        (select oid::int from pg_database where datname = current_database()) as oid,
        current_setting('server_version_num')::int / 10000 as major,
        (select timeline_id::int from pg_control_checkpoint()) as tli`;
    if (from === to) return { total: 0, userRelations: 0, catalogs: 0 };
    const walDir = `${info!.dir}/pg_wal`;
    if (!existsSync(walDir)) return { unavailable: `${walDir} not readable here` };
    const candidates = [`/usr/lib/postgresql/${info!.major}/bin/pg_waldump`, "pg_waldump"];
    const bin = candidates.find((c) => !c.includes("/") || existsSync(c))!;
    const run = spawnSync(bin, ["--path", walDir, "--timeline", String(info!.tli), "--start", from, "--end", to], {
      encoding: "utf8",
      maxBuffer: 256 * 1024 * 1024,
    });
    if (run.error) return { unavailable: `pg_waldump: ${run.error.message}` };
    const lines = run.stdout.split("\n").filter((l) => l.startsWith("rmgr:"));
    if (lines.length === 0 && run.status !== 0) return { unavailable: `pg_waldump: ${run.stderr.trim().split("\n")[0]}` };
    // User tables, their indexes and TOAST (oid >= FirstNormalObjectId) versus system catalogs,
    // whose pages reads may prune (e.g. pg_statistic after ANALYZE): not the application's writes.
    const user = await sql<{ fn: number }[]>`
      select pg_relation_filenode(oid)::int as fn from pg_class where oid >= 16384 and pg_relation_filenode(oid) is not null`;
    const userNodes = new Set(user.map((r) => r.fn));
    const rel = new RegExp(`rel \\d+/${info!.oid}/(\\d+)`, "g");
    let userRelations = 0;
    let catalogs = 0;
    for (const l of lines) {
      const nodes = [...l.matchAll(rel)].map((m) => Number(m[1]));
      if (nodes.some((n) => userNodes.has(n))) userRelations++;
      else if (nodes.length > 0) catalogs++;
    }
    return { total: lines.length, userRelations, catalogs };
  } catch (e) {
    return { unavailable: e instanceof Error ? e.message : String(e) };
  }
}
