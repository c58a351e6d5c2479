import { and, eq, isNull, lt, sql, type SQL } from "drizzle-orm";
import type { Db } from "@/db/client";
import { rowsOf } from "@/db/rows";
import { payments, refunds, settlementLines, settlements, type Settlement } from "@/db/schema";
import type { BaseContext, ServiceContext } from "@/server/context";
import { resourceMissing } from "@/server/domain/errors";
import { newId } from "@/server/domain/ids";
import type { Currency } from "@/server/domain/money";
import { itemNet, settlementTotals, TEST_PAYOUT_DELAY_MS, type SettlementItem } from "@/server/domain/settlements";
import { signalJobs } from "@/server/services/job-signals";

export type SettlementRun = {
  /** Payments and refunds that succeeded before this instant are batched. */
  cutoff: Date;
  /** Confine the run to one merchant (the test helper), and to one environment. */
  merchantId?: string;
  livemode?: boolean;
};

type Group = { merchantId: string; livemode: boolean; currency: Currency };

/** Lines are written in chunks: 7 parameters a row stays far below PostgreSQL's 65,535. */
const LINE_CHUNK = 2_000;

/**
 * Makes one settlement batch per merchant + environment + currency that has succeeded payments or
 * refunds not yet settled. Safe to run any number of times, at once on several instances: each
 * group is batched under its own advisory lock, and a payment or refund joins a batch only by a
 * compare-and-set on its empty `settlement_id`, so nothing is settled twice; whatever succeeded
 * before the cutoff and is not in a batch is taken by the next one, so nothing is skipped.
 */
export async function runSettlements(ctx: BaseContext, run: SettlementRun): Promise<Settlement[]> {
  const made: Settlement[] = [];
  for (const group of await unsettledGroups(ctx.db, run)) {
    const settlement = await settleGroup(ctx, group, run.cutoff);
    if (settlement) made.push(settlement);
  }
  if (made.length) signalJobs({ type: "settlements.created", settlements: made.map((s) => ({ id: s.id, payAfter: s.payAfter })) });
  return made;
}

async function unsettledGroups(db: Db, run: SettlementRun): Promise<Group[]> {
  const scope = (t: typeof payments | typeof refunds): SQL =>
    and(
      eq(t.status, "succeeded"),
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

async function settleGroup(ctx: BaseContext, group: Group, cutoff: Date): Promise<Settlement | null> {
  try {
    return await ctx.db.transaction(async (tx) => {
      // One batch at a time per group: a second run waits here, then finds the items taken.
      await tx.execute(sql`select pg_advisory_xact_lock(hashtextextended(${`settle:${group.merchantId}:${group.livemode}:${group.currency}`}, 0))`);
      const now = ctx.clock.now();
      const id = newId("settlement", now);
      const inGroup = (t: typeof payments | typeof refunds) =>
        and(
          eq(t.merchantId, group.merchantId),
          eq(t.livemode, group.livemode),
          eq(t.currency, group.currency),
          eq(t.status, "succeeded"),
          isNull(t.settlementId),
          lt(t.succeededAt, cutoff),
        );
      const paid = await tx
        .update(payments)
        .set({ settlementId: id })
        .where(inGroup(payments))
        .returning({ id: payments.id, amount: payments.amount, fee: payments.fee, feeBearer: payments.feeBearer, at: payments.succeededAt });
      const refunded = await tx
        .update(refunds)
        .set({ settlementId: id })
        .where(inGroup(refunds))
        .returning({ id: refunds.id, amount: refunds.amount, at: refunds.succeededAt });

      const lines = [
        ...paid.map((p) => ({ objectId: p.id, at: p.at!, item: { kind: "payment", amount: p.amount, merchantFee: p.feeBearer === "merchant" ? p.fee : 0 } as SettlementItem })),
        ...refunded.map((r) => ({ objectId: r.id, at: r.at!, item: { kind: "refund", amount: r.amount } as SettlementItem })),
      ];
      const totals = settlementTotals(lines.map((l) => l.item));
      // A batch pays money out; when refunds outweigh payments its items wait for more payments.
      if (lines.length === 0 || totals.amount <= 0) throw new NothingToPay();

      const [settlement] = await tx
        .insert(settlements)
        .values({
          id,
          merchantId: group.merchantId,
          livemode: group.livemode,
          currency: group.currency,
          status: "pending",
          ...totals,
          periodStart: new Date(Math.min(...lines.map((l) => l.at.getTime()))),
          periodEnd: cutoff,
          // Test mode pays itself out shortly; live batches wait for an operator's confirmation.
          payAfter: group.livemode ? null : new Date(now.getTime() + TEST_PAYOUT_DELAY_MS),
          createdAt: now,
          updatedAt: now,
        })
        .returning();
      for (let i = 0; i < lines.length; i += LINE_CHUNK) {
        await tx.insert(settlementLines).values(
          lines.slice(i, i + LINE_CHUNK).map((l) => ({
            settlementId: id,
            objectId: l.objectId,
            kind: l.item.kind,
            amount: l.item.amount,
            fee: l.item.kind === "payment" ? l.item.merchantFee : 0,
            net: itemNet(l.item),
            occurredAt: l.at,
          })),
        );
      }
      return settlement!;
    });
  } catch (e) {
    if (e instanceof NothingToPay) return null;
    throw e;
  }
}

/** The test helper: batch this merchant's test-mode items now, instead of at the next midnight. */
export async function runTestSettlements(ctx: ServiceContext): Promise<Settlement[]> {
  if (ctx.livemode) throw resourceMissing("test helper", "settlements/run", "path");
  return runSettlements(ctx, { cutoff: ctx.clock.now(), merchantId: ctx.merchant.id, livemode: false });
}
