import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { getDb, type Db } from "@/db/client";
import { rowsOf } from "@/db/rows";
import { manualClock } from "@/server/clock";
import { inRolledBackTransaction } from "@/server/testing/rolled-back";
import { payDueSettlements } from "@/server/services/settlements/pay-settlement";
import { runSettlements } from "@/server/services/settlements/run-settlements";
import { seedPayment, seedTestMerchant } from "@/server/testing/fixtures";
import { eq } from "drizzle-orm";
import { payments } from "@/db/schema";
import { DELIVERY_LEASE_MS } from "@/server/domain/webhooks";
import { loadDeliveries, recordAttempts } from "@/server/services/webhooks/attempt-delivery";
import { createEndpoint } from "@/server/services/webhooks/create-endpoint";
import { fanOutEvents } from "@/server/services/webhooks/fan-out-events";
import { updateEndpoint } from "@/server/services/webhooks/update-endpoint";
import { commitEvents } from "@/server/testing/webhooks";
import { claimDueDeliveries, claimDueDeliveriesSharing, claimDuePayments, claimDueRefunds, LEASE_MS, nextDueAt, renewDeliveryLease } from "./due-work";

/**
 * Every query runs as a prepared statement, and PostgreSQL soon plans one generically: without its
 * parameters' values. The claims of due work must still reach their partial indexes then, or each
 * runner pass walks the whole table (and a table that only grows). Each claim runs once here under
 * a forced generic plan, with sequential scans ruled out wherever an index can serve, and the
 * transaction's own statistics tell which index it read. The moment is the epoch, so nothing is
 * due: nothing is claimed, and the transaction is rolled back anyway.
 */
const EPOCH = new Date(0);

async function indexScans(work: (tx: Db) => Promise<unknown>, index: string): Promise<number> {
  return inRolledBackTransaction(await getDb(), async (tx) => {
    await tx.execute(sql`set local plan_cache_mode = force_generic_plan`);
    await tx.execute(sql`set local enable_seqscan = off`);
    await work(tx);
    const [row] = rowsOf<{ n: number }>(await tx.execute(sql`select pg_stat_get_xact_numscans(${index}::regclass)::int as n`));
    return row!.n;
  });
}

describe("claims of due work under a generic plan", () => {
  const cases: [string, string, (tx: Db) => Promise<unknown>][] = [
    ["payments to expire", "payments_expiry_due_idx", (tx) => claimDuePayments(tx, "expiry", EPOCH, 100)],
    ["payments to reconcile", "payments_check_due_idx", (tx) => claimDuePayments(tx, "reconcile", EPOCH, 100)],
    ["refunds to advance", "refunds_check_due_idx", (tx) => claimDueRefunds(tx, EPOCH, 100)],
    ["webhook deliveries", "webhook_deliveries_due_idx", (tx) => claimDueDeliveries(tx, EPOCH, 100)],
    ["webhook deliveries shared out by endpoint", "webhook_deliveries_due_idx", (tx) => claimDueDeliveriesSharing(tx, EPOCH, 100, { share: { limit: 32, held: new Map([["we_held", 3]]) } })],
    ["test payouts", "settlements_payout_due_idx", (tx) => payDueSettlements({ db: tx, clock: manualClock(EPOCH) }, { limit: 100 })],
    ["payments to settle", "payments_unsettled_idx", (tx) => runSettlements({ db: tx, clock: manualClock(EPOCH) }, { cutoff: EPOCH })],
    ["refunds to settle", "refunds_unsettled_idx", (tx) => runSettlements({ db: tx, clock: manualClock(EPOCH) }, { cutoff: EPOCH })],
  ];
  it.each(cases)("%s read %s", async (_name, index, work) => {
    expect(await indexScans(work, index)).toBeGreaterThan(0);
  });
});

describe("a claim of due payments", () => {
  it("returns the due rows whole, as the lease left them, and leaves the rest", async () => {
    const m = await seedTestMerchant();
    const t0 = new Date();
    const due = await seedPayment(m, "awaiting_customer", { msisdn: "263770000003", at: t0, expiresInMs: 1_000 });
    // Due in a minute: not claimed.
    await seedPayment(m, "awaiting_customer", { msisdn: "263770000003", at: t0, expiresInMs: 60_000 });
    const now = new Date(t0.getTime() + 2_000);
    const claimed = await claimDuePayments(await getDb(), "expiry", now, 10, m.merchant.id);
    expect(claimed.map((p) => p.id)).toEqual([due.id]);
    // The whole row, not just its id: the expiry needs no read of its own.
    expect(claimed[0]).toEqual({ ...due, nextCheckAt: new Date(now.getTime() + LEASE_MS), updatedAt: claimed[0]!.updatedAt });
    // Leased: a second claim at the same moment finds nothing.
    expect(await claimDuePayments(await getDb(), "expiry", now, 10, m.merchant.id)).toEqual([]);
  });
});

describe("the next due time", () => {
  it("does not count an expiry that a worker holds: the runner would pass again at once until the lease ran out", async () => {
    const m = await seedTestMerchant();
    const t0 = new Date("2001-01-01T00:00:00Z"); // before any other test's payment, so it is the earliest
    const p = await seedPayment(m, "awaiting_customer", { msisdn: "263770000003", at: t0, expiresInMs: 1_000 });
    const db = await getDb();
    try {
      const now = new Date();
      expect((await nextDueAt(db, now)).kinds.expiry).toEqual(p.expiresAt);
      expect((await claimDuePayments(db, "expiry", now, 10, m.merchant.id)).map((c) => c.id)).toEqual([p.id]);
      // Held (as by a worker that died mid-expiry): not due until the lease runs out, then due again.
      expect((await nextDueAt(db, now)).kinds.expiry).not.toEqual(p.expiresAt);
      expect((await nextDueAt(db, new Date(now.getTime() + LEASE_MS))).kinds.expiry).toEqual(p.expiresAt);
    } finally {
      await db.update(payments).set({ status: "expired", expiredAt: new Date(), nextCheckAt: null }).where(eq(payments.id, p.id));
    }
  });
});

describe("renewing a delivery's lease before a queued attempt", () => {
  it("renews it while it is still the claimer's, with the endpoint as it is now; not once another claim or an attempt has taken it", async () => {
    const m = await seedTestMerchant();
    const db = await getDb();
    const t0 = new Date();
    const ctx = await m.ctx(false, manualClock(t0));
    const endpoint = await createEndpoint(ctx, { url: "http://127.0.0.1:9/hooks", enabledEvents: ["*"] });
    await commitEvents(m.merchant.id, 2);
    await fanOutEvents({ db, clock: manualClock(t0) }, { merchantId: m.merchant.id });
    const claimed = await claimDueDeliveries(db, t0, 10, { merchantId: m.merchant.id });
    const [first, second] = await loadDeliveries({ db, clock: manualClock(t0) }, claimed);
    await updateEndpoint(ctx, endpoint.id, { url: "http://127.0.0.1:9/moved" });

    // Still the claimer's: leased a minute from now, with the endpoint's new address.
    const later = new Date(t0.getTime() + 30_000);
    const renewed = await renewDeliveryLease(db, first!.delivery, later);
    expect(renewed).toMatchObject({ leasedUntil: new Date(later.getTime() + DELIVERY_LEASE_MS), endpoint: { id: endpoint.id, url: "http://127.0.0.1:9/moved" } });
    // The copy that renewed it holds a lease the old copy no longer names.
    expect(await renewDeliveryLease(db, first!.delivery, later)).toBeNull();
    expect(await renewDeliveryLease(db, { ...first!.delivery, nextAttemptAt: renewed!.leasedUntil }, later)).not.toBeNull();

    // Its lease ran out and another worker claimed it: not the first claimer's any more.
    const lapsed = new Date(t0.getTime() + DELIVERY_LEASE_MS + 1_000);
    expect(await claimDueDeliveries(db, lapsed, 10, { merchantId: m.merchant.id })).toEqual([second!.delivery.id]);
    expect(await renewDeliveryLease(db, second!.delivery, lapsed)).toBeNull();
    // Attempted by the worker that holds it: not to be sent again by anyone's queued copy.
    const [current] = await loadDeliveries({ db, clock: manualClock(lapsed) }, [second!.delivery.id]);
    await recordAttempts({ db, clock: manualClock(lapsed) }, [
      { delivery: current!.delivery, endpointId: endpoint.id, attemptedAt: lapsed, post: { ok: true, statusCode: 200, latencyMs: 1, error: null, responseBody: "" }, counts: true, status: "delivered", retryAt: null },
    ]);
    expect(await renewDeliveryLease(db, current!.delivery, lapsed)).toBeNull();
  });
});
