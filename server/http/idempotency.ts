import { createHash } from "node:crypto";
import { and, eq, lte, notExists, sql } from "drizzle-orm";
import type { Db } from "@/db/client";
import { placeholder, preparedOnce } from "@/db/prepared-once";
import { idempotencyKeys } from "@/db/schema";
import { invalidParam, ServiceError } from "@/server/domain/errors";
import { IDEMPOTENCY_TTL_MS } from "@/server/domain/idempotency";
import type { BaseContext } from "@/server/context";
import { completeRecordStatement, type Completion } from "@/server/services/idempotency/completion";
import { env } from "@/server/env";

const KEY_SHAPE = /^[\x21-\x7e]{1,255}$/;

export type Scope = { merchantId: string; livemode: boolean };

/**
 * We hold the key: run the request, then `complete` (stored for replay) or `release` (5xx).
 * `completion` gives the values that complete the record, for a service whose own last write
 * stores the response (see `ResponseRecord`); `sent` is what the client receives when `body` is
 * stored sealed.
 */
export type OwnedKey = {
  kind: "owned";
  completion(status: number, body: string, sent?: string): Completion;
  complete(status: number, body: string): Promise<void>;
  release(): Promise<void>;
};
export type Claim = OwnedKey | { kind: "replay"; status: number; body: string };

export function validateIdempotencyKey(raw: string | null): string | null {
  if (raw === null) return null;
  if (!KEY_SHAPE.test(raw)) {
    throw invalidParam("Idempotency-Key", "Idempotency-Key must be 1–255 printable ASCII characters without spaces.");
  }
  return raw;
}

/** Same key + same method, path and JSON body (key order and whitespace aside) = same request. */
export function requestFingerprint(method: string, path: string, body: unknown): string {
  return createHash("sha256").update(`${method} ${path}\n${canonicalJson(body)}`).digest("hex");
}

function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (value && typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(",")}}`;
  }
  return JSON.stringify(value ?? null);
}

/**
 * Claims an Idempotency-Key for one request (DESIGN.md "Idempotency").
 *
 * The first statement is an INSERT … ON CONFLICT DO NOTHING: the winner of any race owns the key,
 * everyone else reads the stored row, and a replay writes nothing. A holder whose lock is older
 * than the timeout crashed; the next request takes the key over with a compare-and-set on
 * `locked_at`, so only one retry runs it again.
 */
export async function claimIdempotencyKey(ctx: BaseContext, scope: Scope, key: string, fingerprint: string): Promise<Claim> {
  for (let attempt = 0; attempt < 3; attempt++) {
    const now = ctx.clock.now();
    // One round trip: claim the key, or read the record of whoever holds it. ON CONFLICT DO
    // NOTHING neither writes nor locks the existing row, so a replay writes nothing at all.
    const [row] = await claimFor(ctx.db).execute({
      merchantId: scope.merchantId,
      livemode: scope.livemode,
      key,
      requestHash: fingerprint,
      now,
      expiresAt: new Date(now.getTime() + IDEMPOTENCY_TTL_MS),
    });
    if (row?.inserted) return owned(ctx, scope, key, row.lockedAt);
    // None: released or swept just now, or claimed by a request that committed after this
    // statement took its snapshot. Either way, asking again settles it.
    if (!row) continue;

    if (row.expiresAt <= now) {
      // Kept 24 h: an older record is forgotten and the key is new again.
      await ctx.db.delete(idempotencyKeys).where(and(primaryKey(scope, key), lte(idempotencyKeys.expiresAt, now)));
      continue;
    }
    if (row.requestHash !== fingerprint) {
      throw new ServiceError(
        "idempotency_key_reused",
        "This Idempotency-Key was already used with a different request. Use a new key for each distinct request.",
        "Idempotency-Key",
      );
    }
    if (row.state === "completed") return { kind: "replay", status: row.responseStatus!, body: row.responseBody! };

    const lockAge = now.getTime() - row.lockedAt.getTime();
    if (lockAge < env().IDEMPOTENCY_LOCK_TIMEOUT_MS) throw inProgress();
    const [taken] = await ctx.db
      .update(idempotencyKeys)
      .set({ lockedAt: now })
      .where(and(primaryKey(scope, key), eq(idempotencyKeys.state, "in_progress"), eq(idempotencyKeys.lockedAt, row.lockedAt)))
      .returning({ lockedAt: idempotencyKeys.lockedAt });
    if (!taken) throw inProgress();
    return owned(ctx, scope, key, taken.lockedAt);
  }
  throw inProgress();
}

/**
 * The claim runs on every idempotent request: built and prepared once. The CTE inserts
 * the record and returns it; otherwise the second arm reads the existing one. (The union sits in
 * a subquery because a data-modifying CTE must be at the top of the statement.)
 */
function buildClaim(db: Db) {
  const text = (name: string) => placeholder<string>(name);
  const livemode = placeholder<boolean>("livemode");
  const time = (name: string) => placeholder<Date>(name);
  const stored = {
    lockedAt: idempotencyKeys.lockedAt,
    requestHash: idempotencyKeys.requestHash,
    state: idempotencyKeys.state,
    responseStatus: idempotencyKeys.responseStatus,
    responseBody: idempotencyKeys.responseBody,
    expiresAt: idempotencyKeys.expiresAt,
  };
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
      .returning(stored),
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
        .select({ inserted: sql<boolean>`false`.as("inserted"), ...stored })
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
  return db.with(ins).select().from(claim).prepare("idempotency_claim");
}

const claimFor = preparedOnce(buildClaim);

const primaryKey = (scope: Scope, key: string) =>
  and(eq(idempotencyKeys.merchantId, scope.merchantId), eq(idempotencyKeys.livemode, scope.livemode), eq(idempotencyKeys.key, key));

function owned(ctx: BaseContext, scope: Scope, key: string, lockedAt: Date): OwnedKey {
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
  return {
    kind: "owned",
    completion,
    async complete(status, body) {
      await completionFor(ctx.db).execute(completion(status, body));
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
const completionFor = preparedOnce((db: Db) => completeRecordStatement(db).prepare("idempotency_complete"));

const inProgress = () =>
  new ServiceError(
    "request_in_progress",
    "A request with this Idempotency-Key is still being processed. Retry shortly; the original response will be replayed.",
    "Idempotency-Key",
  );
