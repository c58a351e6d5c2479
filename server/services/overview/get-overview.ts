import { and, count, desc, eq, isNotNull, isNull } from "drizzle-orm";
import { payments, webhookEndpoints, type Payment, type WebhookEndpoint } from "@/db/schema";
import type { ServiceContext } from "@/server/context";
import { CURRENCIES, type Currency } from "@/server/domain/money";
import { PAYMENT_STATUSES, type PaymentStatus } from "@/server/domain/payment-status";
import { DAY_MS, HARARE_OFFSET_MS, harareDay } from "@/server/domain/harare-time";
import { dailyCutoff } from "@/server/domain/settlements";
import { OVERVIEW_DAYS, paymentDayBuckets } from "./payment-days";

const RECENT_UNRESOLVED = 10;

export type Volume = Record<Currency, number>;
export type PeriodStats = {
  /** Succeeded amount per currency, minor units: gross, refunds not taken off. */
  volume: Volume;
  /** Of those succeeded payments, the amount refunded so far, per currency, minor units. */
  refunded: Volume;
  counts: Record<PaymentStatus, number>;
  /** succeeded ÷ (succeeded + failed + expired); null when nothing has finished yet. */
  successRate: number | null;
};
export type DayStats = { date: string; volume: Volume; succeeded: number; total: number };

export type Overview = {
  today: PeriodStats & { date: string };
  /** Monday 00:00 in Harare up to now. */
  week: PeriodStats & { from: string };
  /** Oldest first, the last one is today. */
  days: DayStats[];
  unresolved: { count: number; recent: Payment[] };
  degradedEndpoints: WebhookEndpoint[];
};

const zeroVolume = (): Volume => Object.fromEntries(CURRENCIES.map((c) => [c, 0])) as Volume;
const zeroCounts = () => Object.fromEntries(PAYMENT_STATUSES.map((s) => [s, 0])) as Record<PaymentStatus, number>;
const localDate = (at: Date) => new Date(at.getTime() + HARARE_OFFSET_MS).toISOString().slice(0, 10);

/**
 * Finished payments only: `unknown`, `unresolved` and `awaiting_customer` have no outcome yet, so
 * they count for neither side (an unknown payment is never a failure).
 */
function successRate(counts: Record<PaymentStatus, number>): number | null {
  const finished = counts.succeeded + counts.failed + counts.expired;
  return finished === 0 ? null : counts.succeeded / finished;
}

/**
 * The dashboard's front page for the merchant and environment of `ctx`. A payment counts on the
 * Harare day it was created (ids carry that time, so a day is an id range); one that succeeds
 * later still counts on its creation day. Days that are over are read from their stored totals
 * (paymentDayBuckets), so only today's payments are summed row by row on each read.
 */
export async function getOverview(ctx: ServiceContext): Promise<Overview> {
  const now = ctx.clock.now();
  const todayStart = dailyCutoff(now);
  const windowStart = new Date(todayStart.getTime() - (OVERVIEW_DAYS - 1) * DAY_MS);
  // Monday = 0 … Sunday = 6, on the Harare calendar.
  const weekday = (new Date(todayStart.getTime() + HARARE_OFFSET_MS).getUTCDay() + 6) % 7;
  const weekStart = new Date(todayStart.getTime() - weekday * DAY_MS);

  const mine = and(eq(payments.merchantId, ctx.merchant.id), eq(payments.livemode, ctx.livemode));

  const [firstDay, todayDay, weekDay] = [harareDay(windowStart), harareDay(todayStart), harareDay(weekStart)];

  const [buckets, unresolvedRows, unresolvedCount, degraded] = await Promise.all([
    paymentDayBuckets(ctx, firstDay, todayDay),
    // payments_status_list_idx (merchant_id, livemode, status, id): newest unresolved first.
    ctx.db.select().from(payments).where(and(mine, eq(payments.status, "unresolved"))).orderBy(desc(payments.id)).limit(RECENT_UNRESOLVED),
    // The same index, counted (an index-only scan once the visibility map is current).
    ctx.db.select({ n: count() }).from(payments).where(and(mine, eq(payments.status, "unresolved"))),
    // webhook_endpoints_list_idx (merchant_id, livemode, id); a merchant has a handful of endpoints.
    ctx.db
      .select()
      .from(webhookEndpoints)
      .where(
        and(
          eq(webhookEndpoints.merchantId, ctx.merchant.id),
          eq(webhookEndpoints.livemode, ctx.livemode),
          isNotNull(webhookEndpoints.degradedSince),
          isNull(webhookEndpoints.deletedAt),
          eq(webhookEndpoints.status, "enabled"),
        ),
      )
      .orderBy(webhookEndpoints.degradedSince),
  ]);

  const days: DayStats[] = Array.from({ length: OVERVIEW_DAYS }, (_, i) => ({
    date: localDate(new Date(windowStart.getTime() + i * DAY_MS)),
    volume: zeroVolume(),
    succeeded: 0,
    total: 0,
  }));
  const today: PeriodStats = { volume: zeroVolume(), refunded: zeroVolume(), counts: zeroCounts(), successRate: null };
  const week: PeriodStats = { volume: zeroVolume(), refunded: zeroVolume(), counts: zeroCounts(), successRate: null };

  for (const [day, dayBuckets] of buckets) {
    const d = days[day - firstDay];
    if (!d) continue;
    const periods = [day === todayDay ? today : null, day >= weekDay ? week : null].filter((p) => p !== null);
    for (const b of dayBuckets) {
      d.total += b.n;
      for (const p of periods) p.counts[b.status] += b.n;
      if (b.status !== "succeeded") continue;
      d.succeeded += b.n;
      d.volume[b.currency] += b.amount;
      for (const p of periods) {
        p.volume[b.currency] += b.amount;
        p.refunded[b.currency] += b.refunded;
      }
    }
  }
  today.successRate = successRate(today.counts);
  week.successRate = successRate(week.counts);

  return {
    today: { ...today, date: localDate(todayStart) },
    week: { ...week, from: localDate(weekStart) },
    days,
    unresolved: { count: unresolvedCount[0]?.n ?? 0, recent: unresolvedRows },
    degradedEndpoints: degraded,
  };
}
