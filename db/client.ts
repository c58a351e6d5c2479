import { AsyncLocalStorage } from "node:async_hooks";
import path from "node:path";
import { sql, type Logger, type SQL } from "drizzle-orm";
import type { PgDatabase, PgQueryResultHKT } from "drizzle-orm/pg-core";
import { env } from "@/server/env";
import * as schema from "./schema";
import { lockDataDir } from "./data-dir-lock";

export type Schema = typeof schema;
/** Either driver's database, or a transaction on it: services accept any of them. */
export type Db = PgDatabase<PgQueryResultHKT, Schema>;

export const MIGRATIONS_FOLDER = path.join(process.cwd(), "db", "migrations");

type Handle = {
  db: Db;
  driver: "pglite" | "postgres";
  close: () => Promise<void>;
  /** LISTEN on a channel; resolves to the way to stop. */
  listen: (channel: string, onNotify: () => void) => Promise<() => Promise<void>>;
};

/**
 * The statements drizzle sends, told as they are sent to a watcher in the same async context
 * (watchStatements). Tests use it to show that two requests asked the database the same things;
 * nothing watches in production, where the storage is never entered (so it adds nothing to the
 * propagation of async contexts) and each statement costs one getStore().
 */
const statementWatch = new AsyncLocalStorage<(statement: string) => void>();
const statementLogger: Logger = { logQuery: (statement) => statementWatch.getStore()?.(statement) };

/** Runs `work`, telling `onStatement` the SQL text of every statement it sends through drizzle. */
export function watchStatements<T>(onStatement: (statement: string) => void, work: () => Promise<T>): Promise<T> {
  return statementWatch.run(onStatement, work);
}

// One handle per process, kept on globalThis so Next's dev reloads do not open a second PGlite
// on the same directory (it is single-process and would corrupt).
const holder = globalThis as unknown as { __mariDb?: Promise<Handle> };

export async function openPostgres(url: string): Promise<Handle> {
  const [{ default: postgres }, { drizzle }] = await Promise.all([
    import("postgres"),
    import("drizzle-orm/postgres-js"),
  ]);
  const options = {
    onnotice: () => {},
    // Parse bigint counts as numbers; amounts are 32-bit integers anyway.
    types: { bigint: postgres.BigInt },
  };
  const max = env().DATABASE_POOL_MAX;
  const client = postgres(url, { ...options, max });
  // Queries marked with planPerValue: a small pool of their own whose sessions plan every run of a
  // prepared statement for its values, so that they keep the prepared statement's one round trip.
  const perValue = postgres(url, { ...options, max: perValuePoolSize(max), connection: { plan_cache_mode: "force_custom_plan" } });
  const db = drizzle(preparing(client, perValue), { schema, logger: statementLogger }) as unknown as Db;
  // drizzle installs its own type parsers on the client it is given: the second pool gets the same.
  Object.assign(perValue.options.parsers, client.options.parsers);
  Object.assign(perValue.options.serializers, client.options.serializers);
  return {
    db,
    driver: "postgres",
    close: async () => {
      await Promise.all([client.end(), perValue.end()]);
    },
    // postgres-js keeps one connection for LISTEN, outside the pool, and re-listens after a reconnect.
    listen: async (channel, onNotify) => {
      const { unlisten } = await client.listen(channel, () => onNotify());
      return unlisten;
    },
  };
}

type PostgresClient = import("postgres").Sql;

/**
 * Queries as named prepared statements. drizzle sends its queries through `unsafe(…, { prepare:
 * false })` unless they are built with `.prepare()`, and postgres-js sends an unprepared query with
 * parameters in two round trips (Parse and Describe to learn the parameter types, then Bind and
 * Execute) and reads its row description anew each time. Prepared, a statement is described once
 * per connection and then costs one round trip, and PostgreSQL's plan cache stops planning it on
 * every run once a generic plan proves as good (for the fixed shapes of the hot path, that
 * planning was a third of the database's time).
 *
 * Batches stay unprepared: a multi-row INSERT or a long IN list has a new text for every size,
 * runs once per batch anyway, and would fill each connection's statement cache (kept until the
 * connection is recycled). Queries with a condition marked by `planPerValue` go to `perValue`,
 * a pool whose sessions plan every run; inside a transaction, which has one connection, they go
 * unprepared, which has the same effect.
 */
export const PREPARE_MAX_PARAMETERS = 64;

const PLAN_PER_VALUE = "/* plan per value */";

/**
 * Marks a condition whose best plan depends on its value, such as a search pattern: `%ab%` and
 * `%0042137%` want different plans, and a generic plan (made once, without the value) can pick a
 * walk over every row of a large merchant. Or on the table's size: a generic plan made while a
 * table was small (a new database) may scan it whole, and only an ANALYZE replaces it (never, on
 * a server without autovacuum). The query it is part of is planned on every run.
 */
export function planPerValue(condition: SQL): SQL {
  return sql`${condition} ${sql.raw(PLAN_PER_VALUE)}`;
}

/** Connections for queries planned per value: searches, a small share of the traffic. */
export function perValuePoolSize(max: number): number {
  return Math.max(1, Math.ceil(max / 4));
}

export function preparing(client: PostgresClient, perValue?: PostgresClient): PostgresClient {
  const unsafe = (query: string, params?: unknown[], options?: Record<string, unknown>) => {
    const batch = (params?.length ?? 0) > PREPARE_MAX_PARAMETERS;
    if (!query.includes(PLAN_PER_VALUE)) return client.unsafe(query, params as never, { ...options, prepare: !batch });
    if (perValue) return perValue.unsafe(query, params as never, { ...options, prepare: !batch });
    return client.unsafe(query, params as never, { ...options, prepare: false });
  };
  // drizzle's transactions run on the callback's client: prepare there too. (Only a
  // transaction's client has `savepoint`.)
  const inside = (method: unknown) =>
    typeof method === "function"
      ? (...args: unknown[]) => {
          const fn = args.pop() as (tx: PostgresClient) => unknown;
          return (method as (...a: unknown[]) => unknown).call(client, ...args, (tx: PostgresClient) => fn(preparing(tx)));
        }
      : method;
  const begin = inside(client.begin);
  const savepoint = inside((client as unknown as { savepoint?: unknown }).savepoint);
  return new Proxy(client, {
    get(target, prop, receiver) {
      if (prop === "unsafe") return unsafe;
      if (prop === "begin") return begin;
      if (prop === "savepoint") return savepoint;
      return Reflect.get(target, prop, receiver);
    },
  });
}

export async function openPglite(dataDir: string | undefined, loadDataDir?: Blob): Promise<Handle> {
  const [{ PGlite }, { pg_trgm }, { drizzle }] = await Promise.all([
    import("@electric-sql/pglite"),
    import("@electric-sql/pglite/contrib/pg_trgm"),
    import("drizzle-orm/pglite"),
  ]);
  const client = await PGlite.create({ dataDir, loadDataDir, extensions: { pg_trgm } });
  return {
    db: drizzle(client, { schema, logger: statementLogger }) as unknown as Db,
    driver: "pglite",
    close: () => client.close(),
    listen: (channel, onNotify) => client.listen(channel, () => onNotify()),
  };
}

async function migrateHandle(handle: Handle): Promise<void> {
  if (handle.driver === "pglite") {
    const { migrate } = await import("drizzle-orm/pglite/migrator");
    await migrate(handle.db as never, { migrationsFolder: MIGRATIONS_FOLDER });
  } else {
    const { migrate } = await import("drizzle-orm/postgres-js/migrator");
    await migrate(handle.db as never, { migrationsFolder: MIGRATIONS_FOLDER });
  }
}

async function open(): Promise<Handle> {
  const { DATABASE_URL, PGLITE_DIR } = env();
  if (DATABASE_URL) return openPostgres(DATABASE_URL);
  const { mkdir } = await import("node:fs/promises");
  const dir = path.resolve(PGLITE_DIR);
  await mkdir(dir, { recursive: true });
  const release = lockDataDir(dir);
  try {
    const handle = await openPglite(dir);
    // The embedded database migrates itself on first use; PostgreSQL is migrated by `npm run db:migrate`.
    await migrateHandle(handle);
    return { ...handle, close: () => handle.close().finally(release) };
  } catch (e) {
    release();
    throw e;
  }
}

export async function getDb(): Promise<Db> {
  holder.__mariDb ??= (openOverride ?? open)().catch((e: unknown) => {
    holder.__mariDb = undefined;
    throw e;
  });
  return (await holder.__mariDb).db;
}

export async function driver(): Promise<Handle["driver"]> {
  await getDb();
  return (await holder.__mariDb!).driver;
}

/** Calls `onNotify` whenever a transaction commits new due work (see migration 0004), from any process. */
export async function listenForWork(onNotify: () => void): Promise<() => Promise<void>> {
  await getDb();
  return (await holder.__mariDb!).listen(WORK_CHANNEL, onNotify);
}

export const WORK_CHANNEL = "mari_work";

/** Applies committed migrations to the configured database. */
export async function migrateDatabase(): Promise<void> {
  await getDb();
  const handle = await holder.__mariDb!;
  if (handle.driver === "postgres") await migrateHandle(handle);
}

export async function closeDb(): Promise<void> {
  const pending = holder.__mariDb;
  holder.__mariDb = undefined;
  if (pending) await (await pending).close();
}

/** Tests: open the database with this factory (on first use) instead of from the environment. */
export function overrideDbForTests(factory: () => Promise<Handle>): void {
  holder.__mariDb = undefined;
  openOverride = factory;
}

let openOverride: (() => Promise<Handle>) | undefined;

export { migrateHandle };
export type { Handle as DbHandle };
