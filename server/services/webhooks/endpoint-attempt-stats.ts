import { and, eq, gte, inArray, sql } from "drizzle-orm";
import { webhookAttempts, webhookDeliveries } from "@/db/schema";
import type { ServiceContext } from "@/server/context";
import { idLowerBound } from "@/server/domain/ids";
import { GIVE_UP_AFTER_MS } from "@/server/domain/webhooks";
import { NOT_SENT } from "./attempt-delivery";

/** `lastFailure`: what the latest failed attempt got, `HTTP 500` or the error (a timeout, a refused connection). */
export type EndpointAttemptStats = { attempts: number; failures: number; lastAttemptAt: Date | null; lastFailure: string | null };

export const STATS_WINDOW_MS = 24 * 3600 * 1000;

/**
 * Attempts and failed attempts per endpoint over the last `windowMs`, for a page of endpoints in
 * ONE query (no query per endpoint). A failure is anything but a 2xx, as the delivery decides;
 * attempts that sent nothing (the endpoint was disabled) are not the receiver's and are left out.
 *
 * A delivery's attempts all fall within GIVE_UP_AFTER_MS of its first one, which follows its
 * creation at once (deliveries are queued due now), so deliveries created before the window
 * minus that span are skipped by id: the scan rides webhook_deliveries_endpoint_idx over a bounded
 * range instead of every delivery an endpoint ever had. A delivery whose first attempt waited
 * longer than a day (the runner down that long) would be missed; the health flag itself does not
 * depend on this count.
 */
export async function endpointAttemptStats(
  ctx: ServiceContext,
  endpointIds: string[],
  windowMs = STATS_WINDOW_MS,
): Promise<Map<string, EndpointAttemptStats>> {
  const stats = new Map<string, EndpointAttemptStats>(endpointIds.map((id) => [id, { attempts: 0, failures: 0, lastAttemptAt: null, lastFailure: null }]));
  if (endpointIds.length === 0) return stats;
  const since = new Date(ctx.clock.now().getTime() - windowMs);
  const d = webhookDeliveries;
  const a = webhookAttempts;
  const failed = sql`${a.statusCode} is null or ${a.statusCode} not between 200 and 299`;
  const rows = await ctx.db
    .select({
      endpointId: d.endpointId,
      attempts: sql<number>`count(*)::int`,
      failures: sql<number>`(count(*) filter (where ${failed}))::int`,
      lastAttemptAt: sql<Date>`max(${a.attemptedAt})`.mapWith(a.attemptedAt),
      lastFailure: sql<string | null>`(array_agg(coalesce('HTTP ' || ${a.statusCode}, ${a.error}) order by ${a.attemptedAt} desc, ${a.id} desc) filter (where ${failed}))[1]`,
    })
    .from(d)
    .innerJoin(a, eq(a.deliveryId, d.id))
    .where(
      and(
        eq(d.merchantId, ctx.merchant.id),
        eq(d.livemode, ctx.livemode),
        inArray(d.endpointId, endpointIds),
        gte(d.id, idLowerBound("webhookDelivery", new Date(since.getTime() - GIVE_UP_AFTER_MS))),
        gte(d.lastAttemptAt, since),
        gte(a.attemptedAt, since),
        sql`coalesce(${a.error}, '') not like ${`${NOT_SENT}%`}`,
      ),
    )
    .groupBy(d.endpointId);
  for (const r of rows) stats.set(r.endpointId, { attempts: r.attempts, failures: r.failures, lastAttemptAt: r.lastAttemptAt, lastFailure: r.lastFailure });
  return stats;
}
