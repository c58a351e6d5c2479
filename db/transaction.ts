import { is, sql } from "drizzle-orm";
import { PgTransaction } from "drizzle-orm/pg-core";
import type { Db } from "./client";

/**
 * True when `db` is a transaction's handle (drizzle passes one to transaction callbacks as a Db).
 * By drizzle's kind, not its class (`is`, not `instanceof`): the production build holds more than
 * one copy of drizzle, and the database is opened by whichever copy asked first, so a
 * transaction of it need not be an instance of the PgTransaction this module imports.
 */
export function isTransaction(db: Db): boolean {
  return is(db, PgTransaction);
}

/** What to do once each open transaction (begun by inTransaction) has committed. */
const onCommit = new WeakMap<Db, (() => void)[]>();

/**
 * Runs `fn` in a transaction: the one `db` already is, or a new one. Inside a transaction it adds
 * no savepoint (two statements more): a failure in `fn` aborts the caller's whole transaction, so
 * this is for callers that let it propagate rather than recover and carry on.
 */
export async function inTransaction<T>(db: Db, fn: (tx: Db) => Promise<T>): Promise<T> {
  if (isTransaction(db)) return fn(db);
  const committed: (() => void)[] = [];
  const result = await db.transaction((tx) => {
    onCommit.set(tx, committed);
    return fn(tx);
  });
  for (const then of committed) then();
  return result;
}

/**
 * Runs `then` once what was written through `db` is visible to everyone: after the commit of the
 * transaction `db` is (begun by inTransaction), or now when `db` is not one. A signal to other
 * workers sent from inside a transaction could reach them before its rows do; a rolled-back
 * transaction sends nothing.
 */
export function afterCommit(db: Db, then: () => void): void {
  const queue = onCommit.get(db);
  if (queue) queue.push(then);
  else then();
}

/**
 * Holds a lock named `name` until the transaction `tx` ends: work of one kind for one owner
 * (a merchant's settlement group, a merchant environment's replays) takes turns across instances.
 * Held `shared`, it lets others that hold it shared go on together and waits only for (and holds
 * off) one that holds it alone.
 */
export async function lockUntilCommit(tx: Db, name: string, opts: { shared?: boolean } = {}): Promise<void> {
  await tx.execute(
    opts.shared
      ? sql`select pg_advisory_xact_lock_shared(hashtextextended(${name}, 0))`
      : sql`select pg_advisory_xact_lock(hashtextextended(${name}, 0))`,
  );
}
