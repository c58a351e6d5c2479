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
