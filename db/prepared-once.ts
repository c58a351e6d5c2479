import { sql } from "drizzle-orm";
import type { Db } from "./client";

/** drizzle's prepared query (either driver's) keeps the client it runs on in this field. */
type Bound = { client: unknown };

/**
 * A statement drizzle builds once per process and runs on any handle, a transaction's included.
 *
 * drizzle binds a prepared statement to the handle it was built on, and every transaction is a
 * handle of its own: built per handle, a statement used inside transactions would be built again
 * in each (drizzle's SQL building was a tenth of a provider callback's CPU, and a quarter of a
 * create's before its statements were prepared). Here the first handle that asks builds it; any
 * other gets the same statement, SQL text and row mapping included, bound to its own connection:
 * a shallow copy holding that handle's client. A statement run inside a transaction therefore runs in it
 * (db/prepared-once.test.ts rolls one back to prove it).
 */
export function preparedOnce<Q extends object>(build: (db: Db) => Q): (db: Db) => Q {
  let built: Q | undefined;
  return (db) => {
    const client = clientOf(db);
    built ??= build(db);
    const bound = built as unknown as Partial<Bound>;
    if (!("client" in bound)) throw new Error("preparedOnce: this prepared query keeps no client; drizzle's internals have changed");
    if (bound.client === client) return built;
    return Object.assign(Object.create(Object.getPrototypeOf(built) as object) as Q, built, { client });
  };
}

/**
 * preparedOnce for a statement that comes in shapes (which filters are set, which columns an
 * UPDATE sets): one statement per `shapeOf(...args)`, built by `build` the first time that shape
 * is asked for. Shapes must be few: each is a statement kept for the life of the process.
 */
export function preparedPerShape<A extends unknown[], Q extends object>(
  shapeOf: (...args: A) => string,
  build: (db: Db, ...args: A) => Q,
): (db: Db, ...args: A) => Q {
  const shapes = new Map<string, (db: Db) => Q>();
  return (db, ...args) => {
    const shape = shapeOf(...args);
    let statement = shapes.get(shape);
    if (!statement) shapes.set(shape, (statement = preparedOnce((first) => build(first, ...args))));
    return statement(db);
  };
}

function clientOf(db: Db): unknown {
  const client = (db as unknown as { session?: Partial<Bound> }).session?.client;
  if (client === undefined) throw new Error("preparedOnce: this handle has no session client; drizzle's internals have changed");
  return client;
}

/**
 * A placeholder standing for a value of type T in a prepared statement's condition: drizzle types
 * conditions by their values, not by placeholders, so the cast lives here alone.
 */
export function placeholder<T>(name: string): T {
  return sql.placeholder(name) as unknown as T;
}

/**
 * `{ column: sql.placeholder(column) }` for each column: the values of a prepared INSERT or UPDATE,
 * filled in at each run (drizzle encodes each with its column's encoder). A column that is null in
 * `nulls` is written as NULL instead: some encoders (timestamps') expect a value, so a statement
 * that sets a column to null is a statement of its own. Typed loosely, as drizzle types values and
 * not placeholders: callers type what they pass to `execute` instead.
 */
export function placeholders<C extends string>(columns: readonly C[], nulls: Partial<Record<C, unknown>> = {}): Record<C, never> {
  return Object.fromEntries(columns.map((c) => [c, nulls[c] === null ? sql`null` : sql.placeholder(c)])) as Record<C, never>;
}
