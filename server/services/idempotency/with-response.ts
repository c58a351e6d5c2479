import type { Db } from "@/db/client";
import { inTransaction } from "@/db/transaction";
import { completeRecord, inProgress } from "./claim";
import type { Completion, ResponseRecord } from "./completion";

/**
 * Runs a create's write in a transaction that also stores the request's answer under its
 * Idempotency-Key (when it has one): the object and the answer naming it commit together. A
 * request that fails or dies after its write leaves neither, so the retry with the same key (a 5xx
 * is not stored) makes the object once. Payments and refunds keep the key on their own row
 * instead; a create that only writes (a link, a session, an endpoint, a secret roll) needs this.
 */
export async function writeWithResponse<T>(db: Db, response: ResponseRecord<T> | undefined, write: (tx: Db) => Promise<T>): Promise<T> {
  let stored: Completion | undefined;
  const result = await inTransaction(db, async (tx) => {
    const written = await write(tx);
    if (!response) return written;
    const completion = response.completionFor(written);
    // The key was taken over (this request ran past the lock timeout): the other holder makes the
    // object, so this one's write is rolled back rather than made twice.
    if (!(await completeRecord(tx, completion))) throw inProgress();
    stored = completion;
    return written;
  });
  if (stored) response?.completedWith(stored);
  return result;
}
