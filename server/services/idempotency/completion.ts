import { and, eq, type SQL } from "drizzle-orm";
import type { Db } from "@/db/client";
import { placeholder } from "@/db/prepared-once";
import { idempotencyKeys } from "@/db/schema";

/**
 * The values that complete one idempotency record: which record (merchant, environment, key),
 * fenced on its holder's lock time so that a holder presumed dead and taken over cannot clobber
 * the newer holder's record, and the response to store. `body` is stored (sealed when the
 * response carries a secret); `sent` is the text the client receives.
 */
export type Completion = {
  merchantId: string;
  livemode: boolean;
  key: string;
  /** An ISO timestamp: placeholders in a WHERE are not encoded by their column. */
  lockedAt: string;
  status: number;
  body: string;
  sent: string;
};

/** `db`, or `db.with(cte)`: whatever builds the UPDATE. */
type UpdateBuilder = Pick<Db, "update">;

/**
 * The UPDATE that completes a record, with placeholders named after `Completion`'s fields, for
 * preparing once. `also` is one more condition; a service uses it to complete the record in the
 * same statement as its own last write (a CTE), and only if that write happened.
 */
export function completeRecordStatement(db: UpdateBuilder, also?: SQL) {
  const p = <T = string>(name: keyof Completion) => placeholder<T>(name);
  return db
    .update(idempotencyKeys)
    .set({ state: "completed", responseStatus: p<number>("status"), responseBody: p("body") })
    .where(
      and(
        eq(idempotencyKeys.merchantId, p("merchantId")),
        eq(idempotencyKeys.livemode, p<boolean>("livemode")),
        eq(idempotencyKeys.key, p("key")),
        eq(idempotencyKeys.state, "in_progress"),
        eq(idempotencyKeys.lockedAt, p<Date>("lockedAt")),
        also,
      ),
    );
}

/**
 * The request's idempotency record, handed to a service so that its last write can also store
 * the response: one statement and one commit instead of two. The service asks for the
 * completion of the result it is about to return, adds it to its write, and says when the write
 * stored it; the request then sends exactly `sent` and writes nothing more. When the service does
 * not (its write lost a race, or it took another path), the record is completed as usual after.
 */
export type ResponseRecord<T> = {
  completionFor(result: T): Completion;
  completedWith(completion: Completion): void;
};
