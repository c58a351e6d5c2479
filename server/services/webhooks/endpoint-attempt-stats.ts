import { inArray, sql } from "drizzle-orm";
import { rowsOf } from "@/db/rows";
import { attemptFailed, attemptSent, webhookAttempts, webhookEndpoints } from "@/db/schema";
import type { ServiceContext } from "@/server/context";

/** `lastFailure`: what the latest failed attempt got, `HTTP 500` or the error (a timeout, a refused connection). */
export type EndpointAttemptStats = { attempts: number; failures: number; lastAttemptAt: Date | null; lastFailure: string | null };

export const STATS_WINDOW_MS = 24 * 3600 * 1000;

const a = webhookAttempts;
const e = webhookEndpoints;
// The partial indexes' predicates, as the schema states them: attempts that sent nothing (the
// endpoint was disabled) are not the receiver's.
const SENT = sql`(${attemptSent(a)})`;
const FAILED = attemptFailed(a);

/**
 * Attempts and failed attempts per endpoint over the last `windowMs`, for a page of endpoints in
 * ONE statement (no query per endpoint). A failure is anything but a 2xx, as the delivery decides.
 * Each endpoint's counts are read from webhook_attempts_endpoint_idx alone (its status codes are
 * in the index), and its latest failure is the newest entry of webhook_attempts_endpoint_failed_idx
 * in the window. Endpoints that are not the caller's count nothing.
 */
export async function endpointAttemptStats(
  ctx: ServiceContext,
  endpointIds: string[],
  windowMs = STATS_WINDOW_MS,
): Promise<Map<string, EndpointAttemptStats>> {
  const stats = new Map<string, EndpointAttemptStats>(endpointIds.map((id) => [id, { attempts: 0, failures: 0, lastAttemptAt: null, lastFailure: null }]));
  if (endpointIds.length === 0) return stats;
  const since = new Date(ctx.clock.now().getTime() - windowMs).toISOString();
  type Row = { id: string; attempts: number; failures: number; last_attempt_at: Date | string | null; last_failure: string | null };
  const rows = rowsOf<Row>(
    await ctx.db.execute(sql`
      select ${e.id} as id, s.attempts, s.failures, s.last_attempt_at, f.last_failure
      from ${e}
      cross join lateral (
        select count(*)::int as attempts, (count(*) filter (where ${FAILED}))::int as failures, max(${a.attemptedAt}) as last_attempt_at
        from ${a} where ${a.endpointId} = ${e.id} and ${a.attemptedAt} >= ${since}::timestamptz and ${SENT}
      ) s
      left join lateral (
        select coalesce('HTTP ' || ${a.statusCode}, ${a.error}) as last_failure
        from ${a} where ${a.endpointId} = ${e.id} and ${a.attemptedAt} >= ${since}::timestamptz and ${SENT} and ${FAILED}
        order by ${a.attemptedAt} desc, ${a.id} desc
        limit 1
      ) f on true
      where ${e.merchantId} = ${ctx.merchant.id} and ${e.livemode} = ${ctx.livemode}
        and ${inArray(e.id, endpointIds)}`),
  );
  for (const r of rows) {
    stats.set(r.id, { attempts: r.attempts, failures: r.failures, lastAttemptAt: r.last_attempt_at === null ? null : new Date(r.last_attempt_at), lastFailure: r.last_failure });
  }
  return stats;
}
