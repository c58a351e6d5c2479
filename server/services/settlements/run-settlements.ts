import { and, eq, isNull, lt, sql, type SQL } from "drizzle-orm";
import type { Db } from "@/db/client";
import { literalIn } from "@/db/literal";
import { rowsOf } from "@/db/rows";
import { lockUntilCommit } from "@/db/transaction";
import { payments, refunds, settlementLines, settlements, type Settlement } from "@/db/schema";
import type { BaseContext, ServiceContext } from "@/server/context";
import { testModeOnly } from "@/server/domain/errors";
import { newId } from "@/server/domain/ids";
import type { Currency } from "@/server/domain/money";
import { TEST_PAYOUT_DELAY_MS } from "@/server/domain/settlements";
import { log } from "@/server/log";
import { signalJobs } from "@/server/services/job-signals";

export type SettlementRun = {
  /** Payments and refunds that succeeded before this instant are batched. */
  cutoff: Date;
  /** Confine the run to one merchant (the test helper), and to one environment. */
  merchantId?: string;
  livemode?: boolean;
};

type Group = { merchantId: string; livemode: boolean; currency: Currency };

/**
 * Makes one settlement batch per merchant + environment + currency that has succeeded payments or
 * refunds not yet settled. Safe to run any number of times, at once on several instances: each
 * group is batched under its own advisory lock, and a payment or refund joins a batch only by a
 * compare-and-set on its empty `settlement_id`, so nothing is settled twice; whatever succeeded
 * before the cutoff and is not in a batch is taken by the next one, so nothing is skipped.
 */
export async function runSettlements(ctx: BaseContext, run: SettlementRun): Promise<Settlement[]> {
  const made: Settlement[] = [];
  const failed: { group: Group; error: unknown }[] = [];
  for (const group of await unsettledGroups(ctx.db, run)) {
    // Each group is its own transaction: one that cannot be written (its items stay unsettled for
    // the next run) must not keep every merchant after it in the order from being paid.
    try {
      const settlement = await settleGroup(ctx, group, run.cutoff);
      if (settlement) made.push(settlement);
    } catch (error) {
      log.error("settlement batch failed; its items wait for the next run", { ...group, error });
      failed.push({ group, error });
    }
  }
  if (made.length) signalJobs({ type: "settlements.created", settlements: made.map((s) => ({ id: s.id, payAfter: s.payAfter })) });
  // Made batches stand; the failure still fails the run, so its driver retries and reports it.
  if (failed.length) {
    const names = failed.map(({ group: g }) => `${g.merchantId} ${g.livemode ? "live" : "test"} ${g.currency}`);
    throw new AggregateError(
      failed.map((f) => f.error),
      `Settlement failed for ${failed.length} group(s) (${names.join(", ")}); ${made.length} batch(es) were made.`,
    );
  }
  return made;
}

async function unsettledGroups(db: Db, run: SettlementRun): Promise<Group[]> {
  const scope = (t: typeof payments | typeof refunds): SQL =>
    and(
      literalIn(t.status, "succeeded"),
      isNull(t.settlementId),
      lt(t.succeededAt, run.cutoff),
      run.merchantId === undefined ? undefined : eq(t.merchantId, run.merchantId),
      run.livemode === undefined ? undefined : eq(t.livemode, run.livemode),
    )!;
  const rows = rowsOf<{ merchant_id: string; livemode: boolean; currency: Currency }>(
    await db.execute(sql`
      select ${payments.merchantId} as merchant_id, ${payments.livemode} as livemode, ${payments.currency} as currency
        from ${payments} where ${scope(payments)}
      union
      select ${refunds.merchantId}, ${refunds.livemode}, ${refunds.currency}
        from ${refunds} where ${scope(refunds)}
      order by 1, 2, 3`),
  );
  return rows.map((r) => ({ merchantId: r.merchant_id, livemode: r.livemode, currency: r.currency }));
}

/** Nothing to pay this time: the claims roll back and the items wait for the next run. */
class NothingToPay extends Error {}

type Totals = { payments: number; refunds: number; gross: number; fees: number; refunded: number; first: Date | string | null };

/**
 * One group's batch in one transaction: the batch row, then one statement that claims the items
 * (compare-and-set on an empty `settlement_id`), writes their lines and sums them, all inside
 * PostgreSQL, so a merchant with a million payments a day costs one round trip and no memory
 * here; then the totals on the batch row. A batch that would pay nothing rolls back.
 */
async function settleGroup(ctx: BaseContext, group: Group, cutoff: Date): Promise<Settlement | null> {
  try {
    return await ctx.db.transaction(async (tx) => {
      // One batch at a time per group: a second run waits here, then finds the items taken.
      await lockUntilCommit(tx, `settle:${group.merchantId}:${group.livemode}:${group.currency}`);
      const now = ctx.clock.now();
      const id = newId("settlement", now);
      await tx.insert(settlements).values({
        id,
        merchantId: group.merchantId,
        livemode: group.livemode,
        currency: group.currency,
        status: "pending",
        amount: 0,
        grossAmount: 0,
        feeTotal: 0,
        refundTotal: 0,
        paymentCount: 0,
        refundCount: 0,
        periodStart: cutoff,
        periodEnd: cutoff,
        // Test mode pays itself out shortly; live batches wait for an operator's confirmation.
        payAfter: group.livemode ? null : new Date(now.getTime() + TEST_PAYOUT_DELAY_MS),
        createdAt: now,
        updatedAt: now,
      });
      const inGroup = (t: typeof payments | typeof refunds) =>
        sql`${t.merchantId} = ${group.merchantId} and ${t.livemode} = ${group.livemode} and ${t.currency} = ${group.currency}
          and ${literalIn(t.status, "succeeded")} and ${t.settlementId} is null and ${t.succeededAt} < ${cutoff.toISOString()}::timestamptz`;
      // A payment adds its amount less the fee the merchant bore (a customer-borne fee was paid on
      // top); a refund takes its amount away.
      const [t] = rowsOf<Totals>(
        await tx.execute(sql`
          with paid as (
            update ${payments} set settlement_id = ${id} where ${inGroup(payments)}
            returning ${payments.id} as id, ${payments.amount} as amount,
              case when ${payments.feeBearer} = 'merchant' then ${payments.fee} else 0 end as fee, ${payments.succeededAt} as at
          ), refunded as (
            update ${refunds} set settlement_id = ${id} where ${inGroup(refunds)}
            returning ${refunds.id} as id, ${refunds.amount} as amount, ${refunds.succeededAt} as at
          ), lines as (
            insert into ${settlementLines} (settlement_id, object_id, kind, amount, fee, net, occurred_at)
            select ${id}, id, 'payment', amount, fee, amount - fee, at from paid
            union all
            select ${id}, id, 'refund', amount, 0, -amount, at from refunded
            returning kind, amount, fee, occurred_at
          )
          select count(*) filter (where kind = 'payment')::int as payments,
                 count(*) filter (where kind = 'refund')::int as refunds,
                 coalesce(sum(amount) filter (where kind = 'payment'), 0)::bigint as gross,
                 coalesce(sum(fee), 0)::bigint as fees,
                 coalesce(sum(amount) filter (where kind = 'refund'), 0)::bigint as refunded,
                 min(occurred_at) as first
            from lines`),
      );
      const gross = Number(t!.gross);
      const fees = Number(t!.fees);
      const refunded = Number(t!.refunded);
      // A batch pays money out; when refunds outweigh payments its items wait for more payments.
      if (t!.payments + t!.refunds === 0 || gross - fees - refunded <= 0) throw new NothingToPay();
      const [settlement] = await tx
        .update(settlements)
        .set({
          amount: gross - fees - refunded,
          grossAmount: gross,
          feeTotal: fees,
          refundTotal: refunded,
          paymentCount: t!.payments,
          refundCount: t!.refunds,
          periodStart: new Date(t!.first!),
        })
        .where(eq(settlements.id, id))
        .returning();
      return settlement!;
    });
  } catch (e) {
    if (e instanceof NothingToPay) return null;
    throw e;
  }
}

/** The test helper: batch this merchant's test-mode items now, instead of at the next midnight. */
export async function runTestSettlements(ctx: ServiceContext): Promise<Settlement[]> {
  if (ctx.livemode) throw testModeOnly();
  return runSettlements(ctx, { cutoff: ctx.clock.now(), merchantId: ctx.merchant.id, livemode: false });
}
