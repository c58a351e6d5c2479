import { randomInt } from "node:crypto";
import { and, eq, inArray, sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { getDb, type Db } from "@/db/client";
import { events, payments, refunds, settlementLines, settlements, type Payment } from "@/db/schema";
import { manualClock } from "@/server/clock";
import type { ServiceContext } from "@/server/context";
import { newId } from "@/server/domain/ids";
import { MAX_AMOUNT, type Currency } from "@/server/domain/money";
import type { PaymentStatus } from "@/server/domain/payment-status";
import type { RefundStatus } from "@/server/domain/refunds";
import { TEST_PAYOUT_DELAY_MS } from "@/server/domain/settlements";
import { LocalRunner } from "@/server/jobs/local-runner";
import { providers } from "@/server/providers/registry";
import { seedTestMerchant, uniqueRef, type TestMerchant } from "@/server/testing/fixtures";
import { testPoster } from "@/server/testing/webhooks";
import { confirmSettlementPayout, failSettlementPayout, payDueSettlements } from "./pay-settlement";
import { listSettlementLines } from "./list-settlements";
import { runSettlements } from "./run-settlements";
import { signalsSentBy } from "@/server/testing/signals";
import { env } from "@/server/env";
import { rowsOf } from "@/db/rows";
import { inRolledBackTransaction, scratchCopy } from "@/server/testing/rolled-back";

const HOUR = 3_600_000;
const pick = <T>(xs: readonly T[]): T => xs[randomInt(xs.length)]!;

// Items succeed in the future here: the daily run that other test files' runners make (cutoff: the
// last midnight) can never take them, so these tests own their data even on a shared database.
const BASE = Date.now() + 48 * HOUR;
const future = (hours: number) => new Date(BASE + hours * HOUR);

type Seeded = { id: string; merchantId: string; livemode: boolean; currency: Currency; status: string; amount: number; fee: number; feeBearer: "merchant" | "customer"; at: Date | null };

async function insertPayment(m: TestMerchant, o: { livemode?: boolean; currency?: Currency; status?: PaymentStatus; amount?: number; fee?: number; feeBearer?: "merchant" | "customer"; at: Date }): Promise<Payment> {
  const db = await getDb();
  const status = o.status ?? "succeeded";
  const amount = o.amount ?? 1_000;
  const fee = o.fee ?? 15;
  const feeBearer = o.feeBearer ?? "merchant";
  const [row] = await db
    .insert(payments)
    .values({
      id: newId("payment", o.at),
      merchantId: m.merchant.id,
      livemode: o.livemode ?? false,
      amount,
      currency: o.currency ?? "USD",
      method: "wallet",
      reference: uniqueRef("stl"),
      customerMsisdn: "263771234567",
      network: "ecocash",
      fee,
      feeBearer,
      chargedAmount: feeBearer === "customer" ? amount + fee : amount,
      status,
      provider: "sandbox",
      promptSentAt: o.at,
      expiresAt: new Date(o.at.getTime() + 180_000),
      succeededAt: status === "succeeded" ? o.at : null,
      failedAt: status === "failed" ? o.at : null,
      failureCode: status === "failed" ? "declined" : null,
      expiredAt: status === "expired" ? o.at : null,
      createdAt: o.at,
      updatedAt: o.at,
    })
    .returning();
  return row!;
}

async function insertRefund(p: Payment, o: { status: RefundStatus; amount: number; at: Date }) {
  const db = await getDb();
  const [row] = await db
    .insert(refunds)
    .values({
      id: newId("refund", o.at),
      merchantId: p.merchantId,
      livemode: p.livemode,
      paymentId: p.id,
      amount: o.amount,
      currency: p.currency,
      status: o.status,
      provider: "sandbox",
      succeededAt: o.status === "succeeded" ? o.at : null,
      failedAt: o.status === "failed" ? o.at : null,
      createdAt: o.at,
      updatedAt: o.at,
    })
    .returning();
  return row!;
}

/**
 * The settlement rule computed the plain way, apart from the SQL path: at each cutoff, per
 * merchant + environment + currency, every succeeded item not yet taken that succeeded before
 * the cutoff; a batch is made when its net is positive, otherwise its items wait.
 */
function expectedBatches(items: Seeded[], cutoffs: { cutoff: Date; known: Set<string> }[]) {
  const taken = new Set<string>();
  const batches: { key: string; cutoff: number; ids: string[]; gross: number; fees: number; refunds: number; net: number; payments: number; refundCount: number }[] = [];
  for (const { cutoff, known } of cutoffs) {
    const groups = new Map<string, Seeded[]>();
    for (const it of items) {
      if (!known.has(it.id) || taken.has(it.id) || it.status !== "succeeded" || !it.at || it.at >= cutoff) continue;
      const key = `${it.merchantId}|${it.livemode}|${it.currency}`;
      groups.set(key, [...(groups.get(key) ?? []), it]);
    }
    for (const [key, group] of groups) {
      let gross = 0, fees = 0, refunded = 0, paymentCount = 0, refundCount = 0;
      for (const it of group) {
        if (it.id.startsWith("pay_")) {
          gross += it.amount;
          fees += it.feeBearer === "merchant" ? it.fee : 0;
          paymentCount++;
        } else {
          refunded += it.amount;
          refundCount++;
        }
      }
      const net = gross - fees - refunded;
      if (net <= 0) continue;
      for (const it of group) taken.add(it.id);
      batches.push({ key, cutoff: cutoff.getTime(), ids: group.map((g) => g.id).sort(), gross, fees, refunds: refunded, net, payments: paymentCount, refundCount });
    }
  }
  return batches.sort((a, b) => a.cutoff - b.cutoff || a.key.localeCompare(b.key));
}

async function seedRandom(m: TestMerchant, count: number, fromHour: number, toHour: number): Promise<Seeded[]> {
  const out: Seeded[] = [];
  for (let i = 0; i < count; i++) {
    const status = pick<PaymentStatus>(["succeeded", "succeeded", "succeeded", "failed", "expired", "unresolved"]);
    const amount = randomInt(100, 100_000);
    const at = future(fromHour + Math.random() * (toHour - fromHour));
    const p = await insertPayment(m, {
      livemode: Math.random() < 0.3,
      currency: pick<Currency>(["USD", "ZWG"]),
      status,
      amount,
      fee: randomInt(0, Math.floor(amount / 10)),
      feeBearer: pick(["merchant", "customer"] as const),
      at,
    });
    out.push({ id: p.id, merchantId: p.merchantId, livemode: p.livemode, currency: p.currency, status: p.status, amount: p.amount, fee: p.fee, feeBearer: p.feeBearer, at: p.succeededAt });
    if (status !== "succeeded" || Math.random() < 0.6) continue;
    let left = amount;
    for (let r = 0; r < randomInt(1, 3) && left > 0; r++) {
      const refundAmount = randomInt(1, left + 1);
      const refundStatus = pick<RefundStatus>(["succeeded", "succeeded", "pending", "failed"]);
      if (refundStatus !== "failed") left -= refundAmount;
      const refund = await insertRefund(p, { status: refundStatus, amount: refundAmount, at: new Date(at.getTime() + Math.random() * 30 * HOUR) });
      out.push({ id: refund.id, merchantId: p.merchantId, livemode: p.livemode, currency: p.currency, status: refund.status, amount: refund.amount, fee: 0, feeBearer: "merchant", at: refund.succeededAt });
    }
  }
  return out;
}

describe("settlement runs", () => {
  it("match an independent computation over random data, across batches, with nothing settled twice or skipped", async () => {
    const db = await getDb();
    const m = await seedTestMerchant();
    const ctx = { db, clock: manualClock(future(200)) };
    const items = await seedRandom(m, 120, 0, 72);
    const cutoffs: { cutoff: Date; known: Set<string> }[] = [];
    const run = async (cutoff: Date) => {
      cutoffs.push({ cutoff, known: new Set(items.map((i) => i.id)) });
      return runSettlements(ctx, { cutoff, merchantId: m.merchant.id });
    };
    await run(future(24));
    await run(future(24)); // the same cutoff again: nothing new
    // Items that arrive late for a cutoff already run (and ones after it) go into the next batch.
    items.push(...(await seedRandom(m, 40, 0, 96)));
    await run(future(48));
    await run(future(200));

    const made = await db.select().from(settlements).where(eq(settlements.merchantId, m.merchant.id));
    const lines = await db.select().from(settlementLines).where(inArray(settlementLines.settlementId, made.map((s) => s.id)));
    const linesOf = (id: string) => lines.filter((l) => l.settlementId === id).map((l) => l.objectId).sort();

    const expected = expectedBatches(items, cutoffs);
    const actual = made
      .map((s) => ({
        key: `${s.merchantId}|${s.livemode}|${s.currency}`,
        cutoff: s.periodEnd.getTime(),
        ids: linesOf(s.id),
        gross: s.grossAmount,
        fees: s.feeTotal,
        refunds: s.refundTotal,
        net: s.amount,
        payments: s.paymentCount,
        refundCount: s.refundCount,
      }))
      .sort((a, b) => a.cutoff - b.cutoff || a.key.localeCompare(b.key));
    expect(actual).toEqual(expected);
    expect(made.length).toBeGreaterThan(2);

    // Nothing twice: an object is in one batch at most, and points at that batch.
    const objectIds = lines.map((l) => l.objectId);
    expect(new Set(objectIds).size).toBe(objectIds.length);
    const settledPayments = await db.select({ id: payments.id, settlementId: payments.settlementId }).from(payments).where(eq(payments.merchantId, m.merchant.id));
    const batchOf = new Map(lines.map((l) => [l.objectId, l.settlementId]));
    for (const p of settledPayments) expect(p.settlementId ?? undefined).toBe(batchOf.get(p.id));
    // Nothing skipped: every succeeded item is in a batch unless its group's net was never positive.
    const carried = new Set(items.filter((i) => i.status === "succeeded" && !batchOf.has(i.id)).map((i) => `${i.merchantId}|${i.livemode}|${i.currency}`));
    for (const key of carried) {
      const left = items.filter((i) => `${i.merchantId}|${i.livemode}|${i.currency}` === key && i.status === "succeeded" && !batchOf.has(i.id));
      const net = left.reduce((sum, i) => sum + (i.id.startsWith("pay_") ? i.amount - (i.feeBearer === "merchant" ? i.fee : 0) : -i.amount), 0);
      expect(net, key).toBeLessThanOrEqual(0);
    }
    // Only succeeded payments and succeeded refunds are ever settled.
    const statusOf = new Map(items.map((i) => [i.id, i.status]));
    for (const id of objectIds) expect(statusOf.get(id)).toBe("succeeded");

    // Each line, as listed, names its payment (the payment itself, or the one a refund refunded)
    // and that payment's reference.
    const refunded = new Map(
      (await db.select({ id: refunds.id, paymentId: refunds.paymentId }).from(refunds).where(eq(refunds.merchantId, m.merchant.id))).map((r) => [r.id, r.paymentId]),
    );
    const referenceOf = new Map(
      (await db.select({ id: payments.id, reference: payments.reference }).from(payments).where(eq(payments.merchantId, m.merchant.id))).map((p) => [p.id, p.reference]),
    );
    let refundLines = 0;
    for (const batch of made) {
      const as = { ...ctx, merchant: m.merchant, livemode: batch.livemode } as unknown as ServiceContext;
      for (const line of (await listSettlementLines(as, batch.id, { limit: 100 })).data) {
        if (line.kind === "refund") refundLines++;
        expect(line.paymentId).toBe(line.kind === "refund" ? refunded.get(line.objectId) : line.objectId);
        expect(line.reference).toBe(referenceOf.get(line.paymentId));
      }
    }
    expect(refundLines).toBeGreaterThan(0);
  });

  it("running at once on several workers makes one batch per group and settles each payment once", async () => {
    const db = await getDb();
    const m = await seedTestMerchant();
    const ctx = { db, clock: manualClock(future(100)) };
    const seeded = await Promise.all(Array.from({ length: 120 }, (_, i) => insertPayment(m, { currency: i % 3 ? "USD" : "ZWG", amount: 1_000 + i, at: future(i / 10) })));
    const results = await Promise.all(Array.from({ length: 4 }, () => runSettlements(ctx, { cutoff: future(50), merchantId: m.merchant.id })));
    const made = results.flat();
    expect(made.map((s) => s.currency).sort()).toEqual(["USD", "ZWG"]);
    const lines = await db.select().from(settlementLines).where(inArray(settlementLines.settlementId, made.map((s) => s.id)));
    expect(lines.map((l) => l.objectId).sort()).toEqual(seeded.map((p) => p.id).sort());
    expect(made.reduce((sum, s) => sum + s.paymentCount, 0)).toBe(120);
    expect(made.reduce((sum, s) => sum + s.amount, 0)).toBe(seeded.reduce((sum, p) => sum + p.amount - p.fee, 0));
  });

  it("customer-borne fees are not deducted; merchant-borne fees and refunds are", async () => {
    const db = await getDb();
    const m = await seedTestMerchant();
    const a = await insertPayment(m, { amount: 10_000, fee: 150, feeBearer: "merchant", at: future(1) });
    await insertPayment(m, { amount: 5_000, fee: 75, feeBearer: "customer", at: future(2) });
    await insertRefund(a, { status: "succeeded", amount: 2_500, at: future(3) });
    await insertRefund(a, { status: "pending", amount: 1_000, at: future(3) });
    await insertRefund(a, { status: "failed", amount: 500, at: future(3) });
    const [s] = await runSettlements({ db, clock: manualClock(future(10)) }, { cutoff: future(5), merchantId: m.merchant.id });
    expect(s).toMatchObject({ grossAmount: 15_000, feeTotal: 150, refundTotal: 2_500, amount: 12_350, paymentCount: 2, refundCount: 1, periodStart: future(1), periodEnd: future(5) });
    const lines = await db.select().from(settlementLines).where(eq(settlementLines.settlementId, s!.id));
    expect(lines.map((l) => [l.kind, l.amount, l.fee, l.net]).sort()).toEqual(
      [
        ["payment", 10_000, 150, 9_850],
        ["payment", 5_000, 0, 5_000],
        ["refund", 2_500, 0, -2_500],
      ].sort(),
    );
  });

  it("a day's takings past 2^31 minor units make one batch with exact totals (ZWG 21.5 million is an ordinary day for a large merchant)", async () => {
    const db = await getDb();
    const m = await seedTestMerchant();
    const count = 25;
    for (let i = 0; i < count; i++) await insertPayment(m, { currency: "ZWG", amount: MAX_AMOUNT, fee: 1_500_000, at: future(1 + i / 100) });
    const [s] = await runSettlements({ db, clock: manualClock(future(10)) }, { cutoff: future(5), merchantId: m.merchant.id });
    const gross = count * MAX_AMOUNT;
    expect(gross).toBeGreaterThan(2 ** 31);
    expect(s).toMatchObject({ currency: "ZWG", grossAmount: gross, feeTotal: count * 1_500_000, amount: gross - count * 1_500_000, paymentCount: count });
    const [stored] = await db.select().from(settlements).where(eq(settlements.id, s!.id));
    expect(stored).toMatchObject({ grossAmount: gross, amount: gross - count * 1_500_000 });
  });

  it("a group whose batch cannot be written does not stop the groups after it; the run still reports the failure", async () => {
    const db = await getDb();
    const m = await seedTestMerchant();
    const usd = await insertPayment(m, { currency: "USD", amount: 1_000, fee: 0, at: future(1) });
    const zwg = await insertPayment(m, { currency: "ZWG", amount: 2_000, fee: 0, at: future(1) });
    // Groups run in (merchant, livemode, currency) order: USD first. Its batch fails in the
    // database, as any write can (a full disk, a lock timeout).
    const fn = `settle_fails_${m.merchant.id.toLowerCase()}`;
    await db.execute(sql.raw(`create function ${fn}() returns trigger language plpgsql as $$ begin raise exception 'batch write failed'; end $$`));
    await db.execute(sql.raw(`create trigger ${fn} before insert on settlements for each row when (new.merchant_id = '${m.merchant.id}' and new.currency = 'USD') execute function ${fn}()`));
    const ctx = { db, clock: manualClock(future(10)) };
    try {
      await expect(runSettlements(ctx, { cutoff: future(5), merchantId: m.merchant.id })).rejects.toThrow(/USD/);
    } finally {
      await db.execute(sql.raw(`drop trigger ${fn} on settlements`));
      await db.execute(sql.raw(`drop function ${fn}()`));
    }
    const batchOf = async (id: string) => (await db.select({ s: payments.settlementId }).from(payments).where(eq(payments.id, id)))[0]!.s;
    expect(await batchOf(zwg.id)).not.toBeNull();
    expect(await batchOf(usd.id)).toBeNull();
    // The failed group is taken by the next run.
    const [later] = await runSettlements(ctx, { cutoff: future(5), merchantId: m.merchant.id });
    expect(later).toMatchObject({ currency: "USD", amount: 1_000 });
  });

  it("refunds that outweigh a day's payments wait for a batch that pays something", async () => {
    const db = await getDb();
    const m = await seedTestMerchant();
    const ctx = { db, clock: manualClock(future(100)) };
    const big = await insertPayment(m, { amount: 10_000, fee: 0, at: future(1) });
    expect(await runSettlements(ctx, { cutoff: future(2), merchantId: m.merchant.id })).toHaveLength(1);
    await insertRefund(big, { status: "succeeded", amount: 8_000, at: future(3) });
    await insertPayment(m, { amount: 1_000, fee: 0, at: future(4) });
    expect(await runSettlements(ctx, { cutoff: future(5), merchantId: m.merchant.id })).toEqual([]);
    await insertPayment(m, { amount: 9_000, fee: 0, at: future(6) });
    const [s] = await runSettlements(ctx, { cutoff: future(7), merchantId: m.merchant.id });
    expect(s).toMatchObject({ grossAmount: 10_000, refundTotal: 8_000, amount: 2_000, paymentCount: 2, refundCount: 1 });
  });
});

describe("payouts", () => {
  it("test batches pay out after the delay through the runner, with one settlement.paid event", async () => {
    const db = await getDb();
    const m = await seedTestMerchant();
    await insertPayment(m, { amount: 4_000, at: future(1) });
    const clock = manualClock(future(10));
    const [s] = await runSettlements({ db, clock }, { cutoff: future(5), merchantId: m.merchant.id });
    expect(s!.payAfter).toEqual(new Date(future(10).getTime() + TEST_PAYOUT_DELAY_MS));
    const runner = () => new LocalRunner({ db, clock, providers, webhooks: testPoster(), merchantId: m.merchant.id });

    clock.advance(TEST_PAYOUT_DELAY_MS - 1);
    await runner().tick();
    expect((await db.select().from(settlements).where(eq(settlements.id, s!.id)))[0]!.status).toBe("pending");

    clock.advance(1);
    await Promise.all([runner().tick(), runner().tick(), payDueSettlements({ db, clock }, { limit: 10, merchantId: m.merchant.id })]);
    const [paid] = await db.select().from(settlements).where(eq(settlements.id, s!.id));
    expect(paid).toMatchObject({ status: "paid", paidAt: clock.now() });
    const evts = await db.select().from(events).where(eq(events.objectId, s!.id));
    expect(evts.map((e) => e.type)).toEqual(["settlement.paid"]);
    expect(evts[0]!.data).toMatchObject({ object: { id: s!.id, object: "settlement", status: "paid", amount: 3_985 }, previous_attributes: { status: "pending" } });
  });

  it("live batches wait for an operator; confirming twice at once pays once", async () => {
    const db = await getDb();
    const m = await seedTestMerchant();
    await insertPayment(m, { livemode: true, amount: 2_000, fee: 0, at: future(1) });
    const clock = manualClock(future(10));
    const [s] = await runSettlements({ db, clock }, { cutoff: future(5), merchantId: m.merchant.id });
    expect(s).toMatchObject({ livemode: true, payAfter: null, status: "pending" });
    clock.advance(30 * 24 * HOUR);
    expect(await payDueSettlements({ db, clock }, { limit: 10, merchantId: m.merchant.id })).toEqual([]);

    const live = await m.ctx(true, clock);
    const [a, b] = await Promise.all([confirmSettlementPayout(live, s!.id), confirmSettlementPayout(live, s!.id)]);
    expect([a.status, b.status]).toEqual(["paid", "paid"]);
    const evts = await db.select().from(events).where(and(eq(events.objectId, s!.id), eq(events.type, "settlement.paid")));
    expect(evts).toHaveLength(1);
    // The test environment cannot see or confirm a live batch.
    await expect(confirmSettlementPayout(await m.ctx(false, clock), s!.id)).rejects.toMatchObject({ code: "resource_missing" });
  });

  it("tells the workers about settlement.paid once it is committed, not from inside the payout's transaction", async () => {
    const db = await getDb();
    const m = await seedTestMerchant();
    await insertPayment(m, { amount: 4_000, at: future(1) });
    await insertPayment(m, { livemode: true, amount: 2_000, fee: 0, at: future(1) });
    const clock = manualClock(future(10));
    const made = await runSettlements({ db, clock }, { cutoff: future(5), merchantId: m.merchant.id });
    const live = made.find((s) => s.livemode)!;
    clock.advance(TEST_PAYOUT_DELAY_MS);
    const told = await signalsSentBy(db, async (watched) => {
      expect(await payDueSettlements({ db: watched, clock }, { limit: 10, merchantId: m.merchant.id })).toHaveLength(1);
      expect(await confirmSettlementPayout({ ...(await m.ctx(true, clock)), db: watched }, live.id)).toMatchObject({ status: "paid" });
    });
    expect(told).toEqual([
      { type: "events.recorded", whileOpen: false },
      { type: "events.recorded", whileOpen: false },
    ]);
  });

  it("a failed payout releases its payments and refunds to the next batch, and keeps its lines as history", async () => {
    const db = await getDb();
    const m = await seedTestMerchant();
    const p = await insertPayment(m, { livemode: true, amount: 3_000, fee: 0, at: future(1) });
    await insertRefund(p, { status: "succeeded", amount: 500, at: future(2) });
    const clock = manualClock(future(10));
    const [first] = await runSettlements({ db, clock }, { cutoff: future(5), merchantId: m.merchant.id });
    const live = await m.ctx(true, clock);
    const failed = await failSettlementPayout(live, first!.id, "The bank rejected the account number.");
    expect(failed).toMatchObject({ status: "failed", failureMessage: "The bank rejected the account number." });
    await expect(confirmSettlementPayout(live, first!.id)).rejects.toMatchObject({ code: "parameter_invalid" });
    await expect(failSettlementPayout(live, first!.id, "again")).rejects.toMatchObject({ code: "parameter_invalid" });

    const [second] = await runSettlements({ db, clock }, { cutoff: future(5), merchantId: m.merchant.id });
    expect(second).toMatchObject({ amount: 2_500, paymentCount: 1, refundCount: 1 });
    expect(await db.select().from(settlementLines).where(eq(settlementLines.settlementId, first!.id))).toHaveLength(2);
    const [row] = await db.select({ settlementId: payments.settlementId }).from(payments).where(eq(payments.id, p.id));
    expect(row!.settlementId).toBe(second!.id);
  });

  it("a payout returned after it was confirmed paid releases its items to the next batch, which pays them again", async () => {
    const db = await getDb();
    const m = await seedTestMerchant();
    const p = await insertPayment(m, { livemode: true, amount: 3_000, fee: 0, at: future(1) });
    const clock = manualClock(future(10));
    const [first] = await runSettlements({ db, clock }, { cutoff: future(5), merchantId: m.merchant.id });
    const live = await m.ctx(true, clock);
    const paid = await confirmSettlementPayout(live, first!.id);
    clock.advance(3 * 24 * HOUR);
    const returned = await failSettlementPayout(live, first!.id, "Returned by the bank: account closed.");
    expect(returned).toMatchObject({ status: "failed", paidAt: paid.paidAt, failedAt: clock.now() });
    // Confirming it again cannot make it paid a second time.
    await expect(confirmSettlementPayout(live, first!.id)).rejects.toMatchObject({ code: "parameter_invalid" });
    const [second] = await runSettlements({ db, clock }, { cutoff: future(5), merchantId: m.merchant.id });
    expect(second).toMatchObject({ amount: 3_000, paymentCount: 1 });
    const [row] = await db.select({ settlementId: payments.settlementId }).from(payments).where(eq(payments.id, p.id));
    expect(row!.settlementId).toBe(second!.id);
  });
});

// Plans and their statistics exist only on PostgreSQL (CI sets DATABASE_URL).
describe.runIf(env().DATABASE_URL)("a settlement run after the day's batches", () => {
  /** Rows this transaction has read from the scratch copy of a table, by any scan. */
  async function reads(tx: Db, table: string): Promise<number> {
    const [row] = rowsOf<{ n: number | string }>(
      await tx.execute(sql`select coalesce(seq_tup_read, 0) + coalesce(idx_tup_fetch, 0) as n from pg_stat_xact_user_tables where schemaname = 'settle_probe' and relname = ${table}`),
    );
    return Number(row?.n ?? 0);
  }

  it("reads only what is left before the cutoff, not the day's newer items (it runs every hour)", async () => {
    const m = await seedTestMerchant();
    const cutoff = future(5);
    const made = await inRolledBackTransaction(await getDb(), async (tx) => {
      await scratchCopy(tx, "settle_probe", "payments", "refunds");
      await tx.execute(sql`set local plan_cache_mode = force_custom_plan`);
      // The day since the cutoff: thousands of succeeded payments of this merchant and others, not
      // yet due for a batch; before it, one payment that midnight's run left (it failed).
      const insert = (merchant: string, from: number, to: number, hoursAfterCutoff: number) =>
        tx.execute(sql`insert into payments (id, merchant_id, livemode, amount, currency, method, reference, customer_msisdn, network, fee, fee_bearer,
            charged_amount, status, provider, expires_at, succeeded_at, created_at, updated_at)
          select 'pay_probe' || lpad(i::text, 8, '0'), ${merchant}, false, 1000, 'USD', 'wallet', 'probe' || i, '263771234567', 'ecocash', 15, 'merchant',
            1000, 'succeeded', 'sandbox', ${cutoff.toISOString()}::timestamptz, ${cutoff.toISOString()}::timestamptz + make_interval(hours => ${hoursAfterCutoff}),
            now(), now()
          from generate_series(${from}::int, ${to}::int) as i`);
      await insert("mer_others", 1, 4_000, 1);
      await insert(m.merchant.id, 4_001, 5_000, 2);
      await insert(m.merchant.id, 5_001, 5_001, -1);
      await tx.execute(sql`analyze payments`);
      await tx.execute(sql`analyze refunds`);
      const before = await reads(tx, "payments");
      const batches = await runSettlements({ db: tx, clock: manualClock(future(6)) }, { cutoff });
      return { batches, read: (await reads(tx, "payments")) - before };
    });
    expect(made.batches).toHaveLength(1);
    expect(made.batches[0]).toMatchObject({ merchantId: m.merchant.id, paymentCount: 1, amount: 985 });
    // The one left item, found and claimed (a few index probes), not the 5,000 newer ones.
    expect(made.read).toBeLessThanOrEqual(10);
  });
});
