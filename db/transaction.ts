import { sql } from "drizzle-orm";
import { PgTransaction } from "drizzle-orm/pg-core";
import type { Db } from "./client";

/** True when `db` is a transaction's handle (drizzle passes one to transaction callbacks as a Db). */
export function isTransaction(db: Db): boolean {
  return db instanceof PgTransaction;
}

/**
 * Runs `fn` in a transaction: the one `db` already is, or a new one. Inside a transaction it adds
 * no savepoint (two statements more): a failure in `fn` aborts the caller's whole transaction, so
 * this is for callers that let it propagate rather than recover and carry on.
 */
export function inTransaction<T>(db: Db, fn: (tx: Db) => Promise<T>): Promise<T> {
  return isTransaction(db) ? fn(db) : db.transaction(fn);
}

/**
 * Holds a lock named `name` until the transaction `tx` ends: work of one kind for one owner
 * (a merchant's settlement group, a merchant environment's replays) takes turns across instances.
 */
export async function lockUntilCommit(tx: Db, name: string): Promise<void> {
  await tx.execute(sql`select pg_advisory_xact_lock(hashtextextended(${name}, 0))`);
}
