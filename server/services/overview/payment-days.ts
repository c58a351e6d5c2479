import { and, between, count, eq, gte, inArray, lt, or, sql, type SQL } from "drizzle-orm";
import { paymentDayChanges, paymentDayTotals, payments, type DayBucket } from "@/db/schema";
import type { Db } from "@/db/client";
import { lockUntilCommit } from "@/db/transaction";
import type { BaseContext, ServiceContext } from "@/server/context";
import { DAY_MS, HARARE_OFFSET_MS, harareDay, harareDayStart } from "@/server/domain/harare-time";
import { idLowerBound } from "@/server/domain/ids";

/** A day's totals are stored once it has been over this long: no write still under way can miss its mark. */
export const STORE_DAYS_AFTER_MS = 60 * 60 * 1000;
/** The overview's chart: today and the thirteen days before it. */
export const OVERVIEW_DAYS = 14;
/** How many days back a day's totals and changes are kept: the overview's, and the day before them. */
export const KEEP_DAYS = OVERVIEW_DAYS + 1;

// The same day number, row by row, by arithmetic on the epoch: less than half the time of
// formatting each row's date in its time zone (to_char … at time zone).
const dayOfPayment = sql<number>`floor((date_part('epoch', ${payments.createdAt}) * 1000 + ${sql.raw(String(HARARE_OFFSET_MS))}) / ${sql.raw(String(DAY_MS))})::int`;

/** Each day's payments summed from the rows: one statement over the days' id ranges (runs of days are one range). */
async function sumDays(db: Db, ctx: ServiceContext, days: number[]): Promise<Map<number, DayBucket[]>> {
  const runs: [number, number][] = [];
  for (const d of [...days].sort((a, b) => a - b)) {
    const last = runs.at(-1);
    if (last && last[1] === d) last[1] = d + 1;
    else runs.push([d, d + 1]);
  }
  const ranges = runs.map(([from, to]) =>
    and(gte(payments.id, idLowerBound("payment", harareDayStart(from))), lt(payments.id, idLowerBound("payment", harareDayStart(to)))),
  );
  const rows = await db
    .select({
      day: dayOfPayment,
      status: payments.status,
      currency: payments.currency,
      n: count(),
      amount: sql<number>`coalesce(sum(${payments.amount}), 0)`.mapWith(Number),
      refunded: sql<number>`coalesce(sum(${payments.amountRefunded}), 0)`.mapWith(Number),
    })
    .from(payments)
    // payments_list_idx (merchant_id, livemode, id): an id range per run of days.
    .where(and(eq(payments.merchantId, ctx.merchant.id), eq(payments.livemode, ctx.livemode), ranges.length === 1 ? ranges[0] : or(...ranges)))
    .groupBy(dayOfPayment, payments.status, payments.currency);
  const byDay = new Map<number, DayBucket[]>(days.map((d) => [d, []]));
  for (const { day, ...bucket } of rows) byDay.get(day)?.push(bucket);
  return byDay;
}

/**
 * The payments of the Harare days `first`…`last` of `ctx`'s merchant and environment, each day
 * summed by status and currency. A day over for at least STORE_DAYS_AFTER_MS is summed once and
 * its totals stored; it is summed again only when a change to one of its payments has been
 * recorded since (`payment_day_changes`, written by triggers on `payments`). Today, and
 * yesterday in the first hour after midnight, are summed from the rows every time.
 *
 * Storing happens in one transaction under a lock of the merchant and environment: it clears the
 * days' changes, then sums the days, then stores them. A change committed after the clearing keeps
 * its row, so the day is summed again on the next read, and two overviews at once cannot store
 * older totals over newer.
 */
export async function paymentDayBuckets(ctx: ServiceContext, first: number, last: number): Promise<Map<number, DayBucket[]>> {
  const storableBefore = harareDay(new Date(ctx.clock.now().getTime() - STORE_DAYS_AFTER_MS));
  const mine = <T extends typeof paymentDayTotals | typeof paymentDayChanges>(t: T, from: number, to: number): SQL =>
    and(eq(t.merchantId, ctx.merchant.id), eq(t.livemode, ctx.livemode), between(t.day, from, to))!;
  // One statement, so one snapshot: totals stored by another overview are read with the clearing
  // of the changes it summed, never without it.
  const c = paymentDayChanges;
  const stored = await ctx.db
    .select({ day: paymentDayTotals.day, buckets: paymentDayTotals.buckets })
    .from(paymentDayTotals)
    .where(
      and(
        mine(paymentDayTotals, first, Math.min(last, storableBefore - 1)),
        sql`not exists (select 1 from ${c} where ${c.merchantId} = ${paymentDayTotals.merchantId} and ${c.livemode} = ${paymentDayTotals.livemode} and ${c.day} = ${paymentDayTotals.day})`,
      ),
    );
  const result = new Map(stored.map((t) => [t.day, t.buckets]));
  const missing = Array.from({ length: last - first + 1 }, (_, i) => first + i).filter((d) => !result.has(d));
  const toStore = missing.filter((d) => d < storableBefore);

  const sums =
    toStore.length === 0
      ? await sumDays(ctx.db, ctx, missing)
      : await ctx.db.transaction(async (tx) => {
          await lockUntilCommit(tx, `payment_days:${ctx.merchant.id}:${ctx.livemode}`);
          // Cleared before the sums, in their transaction: every change cleared here committed
          // before them, so it is in them; one that commits later keeps its row.
          await tx.delete(paymentDayChanges).where(and(mine(paymentDayChanges, Math.min(...toStore), Math.max(...toStore)), inArray(paymentDayChanges.day, toStore)));
          const summed = await sumDays(tx, ctx, missing);
          const computedAt = ctx.clock.now();
          await tx
            .insert(paymentDayTotals)
            .values(toStore.map((day) => ({ merchantId: ctx.merchant.id, livemode: ctx.livemode, day, buckets: summed.get(day) ?? [], computedAt })))
            .onConflictDoUpdate({
              target: [paymentDayTotals.merchantId, paymentDayTotals.livemode, paymentDayTotals.day],
              set: { buckets: sql`excluded.buckets`, computedAt: sql`excluded.computed_at` },
            });
          return summed;
        });
  for (const [day, buckets] of sums) result.set(day, buckets);
  return result;
}

/**
 * Totals and changes of days older than KEEP_DAYS are read by no one: deletes those totals and up
 * to `limit` of those changes, and says how many changes went, so a caller can repeat until none are left.
 */
export async function sweepOldPaymentDays(ctx: BaseContext, limit = 1_000): Promise<number> {
  const before = harareDay(ctx.clock.now()) - KEEP_DAYS;
  // One row per merchant, environment and day an overview was read: few, gone in one statement.
  await ctx.db.delete(paymentDayTotals).where(lt(paymentDayTotals.day, before));
  const old = ctx.db.select({ id: paymentDayChanges.id }).from(paymentDayChanges).where(lt(paymentDayChanges.day, before)).limit(limit);
  const gone = await ctx.db.delete(paymentDayChanges).where(inArray(paymentDayChanges.id, old)).returning({ id: paymentDayChanges.id });
  return gone.length;
}
