import { sql } from "drizzle-orm";
import type { Db } from "@/db/client";

/**
 * Runs `work` in a transaction that is always rolled back and returns what it returned: for tests
 * whose rows or settings no other test may see, or that must leave nothing behind. An error thrown
 * by `work` propagates.
 */
export async function inRolledBackTransaction<T>(db: Db, work: (tx: Db) => Promise<T>): Promise<T> {
  let result: { value: T } | undefined;
  await db
    .transaction(async (tx) => {
      result = { value: await work(tx as unknown as Db) };
      tx.rollback();
    })
    .catch((e: unknown) => {
      if (!result) throw e;
    });
  return result!.value;
}

/**
 * Inside such a transaction: empty copies of tables, with their defaults, constraints and indexes,
 * in a schema of their own that unqualified names now find first, so the services' own statements
 * run against them (and their statistics start from nothing).
 */
export async function scratchCopy(tx: Db, schema: string, ...tables: [string, ...string[]]): Promise<void> {
  await tx.execute(sql.raw(`create schema ${schema}`));
  for (const table of tables) {
    await tx.execute(sql.raw(`create table ${schema}.${table} (like public.${table} including defaults including constraints including indexes)`));
  }
  await tx.execute(sql.raw(`set local search_path = ${schema}, public`));
}
