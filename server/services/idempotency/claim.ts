import { and, eq, gt, lte, notExists, sql } from "drizzle-orm";
import type { Db } from "@/db/client";
import { placeholder, preparedOnce } from "@/db/prepared-once";
import { idempotencyKeys } from "@/db/schema";
import { idempotencyKeyReused, ServiceError } from "@/server/domain/errors";
import { IDEMPOTENCY_TTL_MS } from "@/server/domain/idempotency";
import type { BaseContext } from "@/server/context";
import { env } from "@/server/env";
import { completeRecordStatement, type Completion, type ResponseRecord } from "./completion";
import { rememberCompleted } from "./remembered";

export type Scope = { merchantId: string; livemode: boolean };

/**
 * We hold the key: run the request, then `complete` (stored for replay) or `release` (5xx).
 * `completion` gives the values that complete the record, for a service whose own last write
 * stores the response (see `ResponseRecord`); `sent` is what the client receives when `body` is
 * stored sealed.
 */
export type OwnedKey<R extends ClaimRow = ClaimRow> = {
  kind: "owned";
  /** The row of the statement that claimed the key; absent when a crashed holder's lock was taken over. */
  claimedBy?: R;
  completion(status: number, body: string, sent?: string): Completion;
  /** Says that the record was completed with `completion` (by a service's own write), so that this process remembers it. */
  completed(completion: Completion): void;
  complete(status: number, body: string): Promise<void>;
  release(): Promise<void>;
};
export type Replay = { kind: "replay"; status: number; body: string };
export type Claim<R extends ClaimRow = ClaimRow> = OwnedKey<R> | Replay;

/** The values of the statement that claims a key: the record it inserts when the key is new. */
export type ClaimValues = Scope & { key: string; requestHash: string; now: Date; expiresAt: Date };

/** What a claiming statement answers: the record it inserted, or the one that holds the key. */
export type ClaimRow = {
  inserted: boolean;
  lockedAt: Date;
  requestHash: string;
  state: "in_progress" | "completed";
  responseStatus: number | null;
  responseBody: string | null;
  expiresAt: Date;
};

/** A statement that claims a key, alone or together with a service's first write (`KeyClaim`). */
export type ClaimStatement<R extends ClaimRow = ClaimRow> = (values: ClaimValues) => Promise<R | undefined>;

/**
 * The request's Idempotency-Key, handed to a service that claims it in the statement of its own
 * first write: one statement and one commit instead of two. The mirror of `ResponseRecord`,
 * which stores the response with the service's last write.
 */
export type KeyClaim = {
  /**
   * Runs `write`, one statement that inserts the key's record from the values given (as
   * `claimRecordCte` does) and the service's row only if that insert happened, and answers the
   * claim's row with the service's row (`written`) attached. Resolves with that row when the
   * statement claimed the key; with undefined when this request owns the key another way (a lock
   * left by a crashed request taken over, or the key claimed alone after `write` failed): the
   * service's write did not happen. Rejects when this request may not run: a replay of the
   * stored answer, `request_in_progress`, `idempotency_key_reused`. When `write` fails, the key
   * is claimed alone and `write`'s error is rethrown, for the service to handle as it would
   * without a claim.
   */
  withFirstWrite<T>(write: ClaimStatement<ClaimRow & { written: T | null }>): Promise<T | undefined>;
};

/**
 * Claims an Idempotency-Key for one request (DESIGN.md "Idempotency").
 *
 * The first statement is an INSERT … ON CONFLICT DO NOTHING: the winner of any race owns the key,
 * everyone else reads the stored row, and a replay writes nothing. A holder whose lock is older
 * than the timeout crashed; the next request takes the key over with a compare-and-set on
 * `locked_at`, so only one retry runs it again. `first` is that statement: the claim alone, or a
 * service's first write with the claim in it (`KeyClaim`); its row comes back as `claimedBy` when
 * it inserted the record.
 */
export async function claimIdempotencyKey<R extends ClaimRow>(
  ctx: BaseContext,
  scope: Scope,
  key: string,
  fingerprint: string,
  first: ClaimStatement<R> = claimAlone(ctx.db) as ClaimStatement<R>,
): Promise<Claim<R>> {
  for (let attempt = 0; attempt < 3; attempt++) {
    const now = ctx.clock.now();
    // One round trip: claim the key, or read the record of whoever holds it. ON CONFLICT DO
    // NOTHING neither writes nor locks the existing row, so a replay writes nothing at all.
    const row = await first({ ...scope, key, requestHash: fingerprint, now, expiresAt: new Date(now.getTime() + IDEMPOTENCY_TTL_MS) });
    if (row?.inserted) return { ...owned(ctx, scope, key, { lockedAt: row.lockedAt, requestHash: fingerprint, expiresAt: row.expiresAt }), claimedBy: row };
    // None: released or swept just now, or claimed by a request that committed after this
    // statement took its snapshot. Either way, asking again settles it.
    if (!row) continue;

    if (row.expiresAt <= now) {
      // Kept 24 h: an older record is forgotten and the key is new again.
      await ctx.db.delete(idempotencyKeys).where(and(primaryKey(scope, key), lte(idempotencyKeys.expiresAt, now)));
      continue;
    }
    if (row.requestHash !== fingerprint) throw idempotencyKeyReused();
    if (row.state === "completed") {
      const replay = { status: row.responseStatus!, body: row.responseBody! };
      rememberCompleted(scope, key, { ...replay, requestHash: row.requestHash, expiresAt: row.expiresAt });
      return { kind: "replay", ...replay };
    }

    const lockAge = now.getTime() - row.lockedAt.getTime();
    if (lockAge < env().IDEMPOTENCY_LOCK_TIMEOUT_MS) throw inProgress();
    const [taken] = await ctx.db
      .update(idempotencyKeys)
      .set({ lockedAt: now })
      .where(and(primaryKey(scope, key), eq(idempotencyKeys.state, "in_progress"), eq(idempotencyKeys.lockedAt, row.lockedAt)))
      .returning({ lockedAt: idempotencyKeys.lockedAt });
    if (!taken) throw inProgress();
    return owned(ctx, scope, key, { lockedAt: taken.lockedAt, requestHash: fingerprint, expiresAt: row.expiresAt });
  }
  throw inProgress();
}

/** What a claiming statement selects: the claim's row, built from the record's columns. */
const recordColumns = {
  lockedAt: idempotencyKeys.lockedAt,
  requestHash: idempotencyKeys.requestHash,
  state: idempotencyKeys.state,
  responseStatus: idempotencyKeys.responseStatus,
  responseBody: idempotencyKeys.responseBody,
  expiresAt: idempotencyKeys.expiresAt,
};

/**
 * The parts every claiming statement is made of, with placeholders named after `ClaimValues`:
 * `ins`, the CTE that inserts the record when the key is new (a service's first write runs only
 * if it returned a row), and `claim`, the subquery that answers the claim's row: the inserted
 * record, or else the existing one. (The union sits in a subquery because a data-modifying CTE
 * must be at the top of the statement.)
 */
export function claimRecordCte(db: Db) {
  const text = (name: keyof ClaimValues) => placeholder<string>(name);
  const livemode = placeholder<boolean>("livemode");
  const time = (name: keyof ClaimValues) => placeholder<Date>(name);
  const ins = db.$with("ins").as(
    db
      .insert(idempotencyKeys)
      .values({
        merchantId: text("merchantId"),
        livemode,
        key: text("key"),
        requestHash: text("requestHash"),
        state: "in_progress",
        lockedAt: time("now"),
        createdAt: time("now"),
        expiresAt: time("expiresAt"),
      })
      .onConflictDoNothing()
      .returning(recordColumns),
  );
  const claim = db
    .select({
      inserted: sql<boolean>`true`.as("inserted"),
      lockedAt: ins.lockedAt,
      requestHash: ins.requestHash,
      state: ins.state,
      responseStatus: ins.responseStatus,
      responseBody: ins.responseBody,
      expiresAt: ins.expiresAt,
    })
    .from(ins)
    .unionAll(
      db
        .select({ inserted: sql<boolean>`false`.as("inserted"), ...recordColumns })
        .from(idempotencyKeys)
        .where(
          and(
            eq(idempotencyKeys.merchantId, text("merchantId")),
            eq(idempotencyKeys.livemode, livemode),
            eq(idempotencyKeys.key, text("key")),
            notExists(db.select({ one: sql`1` }).from(ins)),
          ),
        ),
    )
    .as("claim");
  return { ins, claim };
}

/** The claim alone runs on every idempotent request: built and prepared once. */
const claimAloneStatement = preparedOnce((db: Db) => {
  const { ins, claim } = claimRecordCte(db);
  return db.with(ins).select().from(claim).prepare("idempotency_claim");
});

function claimAlone(db: Db): ClaimStatement {
  return async (values) => (await claimAloneStatement(db).execute(values))[0];
}

const primaryKey = (scope: Scope, key: string) =>
  and(eq(idempotencyKeys.merchantId, scope.merchantId), eq(idempotencyKeys.livemode, scope.livemode), eq(idempotencyKeys.key, key));

/** What the holder of a key knows of its record. */
type Held = { lockedAt: Date; requestHash: string; expiresAt: Date };

function owned<R extends ClaimRow>(ctx: BaseContext, scope: Scope, key: string, { lockedAt, requestHash, expiresAt }: Held): OwnedKey<R> {
  // Fenced on our own lock time (as the completion is): a holder that was presumed dead and taken
  // over cannot clobber the newer holder's record.
  const mine = () => and(primaryKey(scope, key), eq(idempotencyKeys.state, "in_progress"), eq(idempotencyKeys.lockedAt, lockedAt));
  const completion = (status: number, body: string, sent = body): Completion => ({
    merchantId: scope.merchantId,
    livemode: scope.livemode,
    key,
    lockedAt: lockedAt.toISOString(),
    status,
    body,
    sent,
  });
  const completed = ({ status, body }: Completion) => rememberCompleted(scope, key, { requestHash, status, body, expiresAt });
  return {
    kind: "owned",
    completion,
    completed,
    async complete(status, body) {
      const done = completion(status, body);
      // No row: the key is no longer ours (taken over as presumed dead), and its record not our answer.
      if (await completeRecord(ctx.db, done)) completed(done);
    },
    async release() {
      await ctx.db.delete(idempotencyKeys).where(mine());
    },
  };
}

/**
 * The completion runs on every idempotent request: built and prepared once, so drizzle does not
 * rebuild its SQL each time.
 */
const completionFor = preparedOnce((db: Db) => completeRecordStatement(db).returning({ key: idempotencyKeys.key }).prepare("idempotency_complete"));

/**
 * Completes a record through `db` (a service's transaction: see writeWithResponse). False when
 * the key is no longer its holder's: taken over as presumed dead.
 */
export async function completeRecord(db: Db, done: Completion): Promise<boolean> {
  return (await completionFor(db).execute(done)).length > 0;
}

/**
 * The held key's record as a ResponseRecord, for a service's write to store its answer with:
 * `render` gives the answer of the service's result, kept as `store` makes it of its text (sealed
 * when it shows a secret) and sent as the text itself; `stored` hears of a completion so stored.
 * `holder` is read when the service asks, by which time the key is held.
 */
export function heldRecord<T>(
  holder: () => OwnedKey,
  status: number,
  render: (result: T) => unknown,
  store: (text: string) => string,
  stored: (completion: Completion) => void,
): ResponseRecord<T> {
  return {
    completionFor: (result) => {
      const text = JSON.stringify(render(result));
      return holder().completion(status, store(text), text);
    },
    completedWith: (completion) => {
      stored(completion);
      holder().completed(completion);
    },
  };
}

export const inProgress = () =>
  new ServiceError(
    "request_in_progress",
    "A request with this Idempotency-Key is still being processed. Retry shortly; the original response will be replayed.",
    "Idempotency-Key",
    // A create takes well under a second; one whose provider push hangs, PROVIDER_PUSH_TIMEOUT_MS at most.
    { retryAfterSeconds: 1 },
  );

/**
 * The hash of the request a key was first used with in this scope (unexpired), if it was: for a
 * request that fails validation, which never claims the key, to be told the key is taken by
 * another request rather than what was wrong with its body. Read only on that failure path.
 */
export async function keyRequestHash(base: BaseContext, scope: Scope, key: string): Promise<string | undefined> {
  const [row] = await base.db
    .select({ requestHash: idempotencyKeys.requestHash })
    .from(idempotencyKeys)
    .where(
      and(
        eq(idempotencyKeys.merchantId, scope.merchantId),
        eq(idempotencyKeys.livemode, scope.livemode),
        eq(idempotencyKeys.key, key),
        gt(idempotencyKeys.expiresAt, base.clock.now()),
      ),
    )
    .limit(1);
  return row?.requestHash;
}
