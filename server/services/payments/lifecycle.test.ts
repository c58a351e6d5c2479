import { eq } from "drizzle-orm";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { getDb } from "@/db/client";
import { events, payments, providerCallbacks, type Payment } from "@/db/schema";
import { manualClock, systemClock } from "@/server/clock";
import { providers, sandbox } from "@/server/providers/registry";
import { sandboxReference } from "@/server/providers/sandbox/client";
import { seedPayment, seedTestMerchant, type TestMerchant } from "@/server/testing/fixtures";
import { signalsSentBy } from "@/server/testing/signals";
import { receiveProviderCallback } from "../providers/receive-callback";
import { expirePayment, expirePayments } from "./expire-payment";
import type { ProviderRegistry, WalletProvider } from "@/server/providers/port";
import { markUnresolved, reconcileClaimed, reconcilePayment } from "./reconcile-payment";

const HOUR = 3_600_000;

async function eventTypes(paymentId: string) {
  const db = await getDb();
  return (await db.select({ type: events.type }).from(events).where(eq(events.objectId, paymentId))).map((e) => e.type);
}

async function callbacksOf(paymentId: string) {
  const db = await getDb();
  return db.select().from(providerCallbacks).where(eq(providerCallbacks.paymentId, paymentId));
}

function callbackFor(p: Payment, status: string, overrides: Record<string, unknown> = {}) {
  return sandbox.signedCallback({
    event_id: `evt-${status}-${p.id}`,
    merchant_tx_id: p.id,
    transaction_ref: sandboxReference(p.id),
    amount: p.chargedAmount,
    currency: p.currency,
    status,
    ...overrides,
  });
}

describe("provider callbacks", () => {
  let m: TestMerchant;
  beforeAll(async () => {
    m = await seedTestMerchant();
  });
  const receive = async (cb: { headers: Headers; rawBody: string }) =>
    receiveProviderCallback({ db: await getDb(), clock: systemClock, providers }, { providerName: "sandbox", ...cb });

  it("applies a success once, however many times it arrives", async () => {
    const p = await seedPayment(m, "awaiting_customer");
    const receipts = [];
    for (let i = 0; i < 5; i++) receipts.push(await receive(callbackFor(p, "SUCCESS")));
    expect(receipts.map((r) => r.outcome)).toEqual(["applied", "duplicate", "duplicate", "duplicate", "duplicate"]);
    expect(await eventTypes(p.id)).toEqual(["payment.succeeded"]);
    expect(await callbacksOf(p.id)).toHaveLength(5);
  });

  it("lets a late decline after success change nothing", async () => {
    const p = await seedPayment(m, "awaiting_customer");
    await receive(callbackFor(p, "SUCCESS"));
    const late = await receive(callbackFor(p, "INSUFFICIENT_FUNDS"));
    expect(late).toMatchObject({ status: 200, outcome: "ignored", reason: "payment already succeeded" });
    expect(await eventTypes(p.id)).toEqual(["payment.succeeded"]);
  });

  it("takes a success that comes after expiry: the customer paid as the prompt ran out, and the money moved", async () => {
    const p = await seedPayment(m, "awaiting_customer", { msisdn: "263770000003" });
    const db = await getDb();
    await db.update(payments).set({ status: "expired", expiredAt: new Date() }).where(eq(payments.id, p.id));
    // A late decline or a stale "pending" changes nothing: the payment did expire unpaid.
    expect(await receive(callbackFor(p, "INSUFFICIENT_FUNDS"))).toMatchObject({ outcome: "ignored", reason: "payment already expired" });
    const late = await receive(callbackFor(p, "SUCCESS"));
    expect(late).toMatchObject({ status: 200, outcome: "applied" });
    const [row] = await db.select().from(payments).where(eq(payments.id, p.id));
    expect(row).toMatchObject({ status: "succeeded", providerReference: sandboxReference(p.id) });
    expect(row!.expiredAt).not.toBeNull(); // both times stay in status_transitions
    expect(await eventTypes(p.id)).toEqual(["payment.succeeded"]);
    const [event] = await db.select().from(events).where(eq(events.objectId, p.id));
    expect(event!.data.previous_attributes).toEqual({ status: "expired" });
    expect((await receive(callbackFor(p, "SUCCESS"))).outcome).toBe("duplicate");
  });

  it("tells the workers about the event once it is committed, not from inside the callback's transaction", async () => {
    const p = await seedPayment(m, "awaiting_customer");
    const told = await signalsSentBy(await getDb(), async (db) => {
      const receipt = await receiveProviderCallback({ db, clock: systemClock, providers }, { providerName: "sandbox", ...callbackFor(p, "SUCCESS") });
      expect(receipt.outcome).toBe("applied");
    });
    expect(told).toEqual([{ type: "events.recorded", whileOpen: false }]);
  });

  it("never turns a declined payment into a paid one", async () => {
    const p = await seedPayment(m, "awaiting_customer");
    await receive(callbackFor(p, "INSUFFICIENT_FUNDS"));
    expect(await receive(callbackFor(p, "SUCCESS"))).toMatchObject({ outcome: "ignored", reason: "payment already failed" });
    expect(await eventTypes(p.id)).toEqual(["payment.failed"]);
  });

  it("fails a payment only on a definitive decline, with its reason", async () => {
    const p = await seedPayment(m, "awaiting_customer");
    expect((await receive(callbackFor(p, "PENDING"))).outcome).toBe("ignored");
    expect((await receive(callbackFor(p, "UNKNOWN"))).outcome).toBe("ignored");
    expect(await eventTypes(p.id)).toEqual([]);
    await receive(callbackFor(p, "INSUFFICIENT_FUNDS"));
    const db = await getDb();
    const [row] = await db.select().from(payments).where(eq(payments.id, p.id));
    expect(row).toMatchObject({ status: "failed", failureCode: "insufficient_funds" });
    expect(await eventTypes(p.id)).toEqual(["payment.failed"]);
  });

  it("refuses forged, unsigned and stale callbacks with 401 and no change", async () => {
    const p = await seedPayment(m, "awaiting_customer");
    const forged = sandbox.signedCallback({ merchant_tx_id: p.id, transaction_ref: "x", amount: p.chargedAmount, currency: "USD", status: "SUCCESS" }, new Date(), "not-the-secret-at-all");
    const unsigned = { headers: new Headers(), rawBody: callbackFor(p, "SUCCESS").rawBody };
    const stale = sandbox.signedCallback(JSON.parse(callbackFor(p, "SUCCESS").rawBody), new Date(Date.now() - 10 * 60_000));
    for (const cb of [forged, unsigned, stale]) expect((await receive(cb)).status).toBe(401);
    expect(await eventTypes(p.id)).toEqual([]);
    expect(await callbacksOf(p.id)).toHaveLength(0);
  });

  it("answers 400 to a signed callback that could not be stored (a NUL in a field), and changes nothing", async () => {
    const p = await seedPayment(m, "awaiting_customer");
    for (const overrides of [{ merchant_tx_id: `${p.id}\u0000` }, { event_id: "evt\u0000x" }, { transaction_ref: "\ud800" }]) {
      expect(await receive(callbackFor(p, "SUCCESS", overrides))).toEqual({ status: 400, reason: "unreadable callback" });
    }
    expect(await eventTypes(p.id)).toEqual([]);
    expect(await callbacksOf(p.id)).toEqual([]);
  });

  it("quarantines an amount that is not the payment's", async () => {
    const p = await seedPayment(m, "awaiting_customer");
    const r = await receive(callbackFor(p, "SUCCESS", { amount: p.chargedAmount - 1 }));
    expect(r).toMatchObject({ status: 200, outcome: "quarantined" });
    expect(await eventTypes(p.id)).toEqual([]);
    expect((await callbacksOf(p.id))[0]).toMatchObject({ outcome: "quarantined", reportedAmount: p.chargedAmount - 1 });
  });

  it("quarantines an amount too large for any payment (past what the amount column holds), and keeps the callback", async () => {
    const p = await seedPayment(m, "awaiting_customer");
    for (const amount of [3_000_000_000, -3_000_000_000, 2 ** 53 + 2, 1e300]) {
      expect(await receive(callbackFor(p, "SUCCESS", { amount, event_id: `evt-huge-${amount}` }))).toMatchObject({ status: 200, outcome: "quarantined" });
    }
    expect(await eventTypes(p.id)).toEqual([]);
    const kept = await callbacksOf(p.id);
    expect(kept.map((c) => [c.outcome, c.reportedAmount])).toEqual(Array(4).fill(["quarantined", null]));
    expect(kept.map((c) => JSON.parse(c.payload).amount).sort()).toEqual([-3_000_000_000, 1e300, 2 ** 53 + 2, 3_000_000_000].sort());
  });

  it("logs and ignores callbacks for unknown payments or another reference", async () => {
    const p = await seedPayment(m, "awaiting_customer");
    const db = await getDb();
    await db.update(payments).set({ providerReference: sandboxReference(p.id) }).where(eq(payments.id, p.id));
    const wrongRef = await receive(callbackFor(p, "SUCCESS", { transaction_ref: "SBXSOMEONEELSE" }));
    expect(wrongRef.outcome).toBe("ignored");
    const ghost = await receive(sandbox.signedCallback({ merchant_tx_id: "pay_doesnotexist", transaction_ref: "r", amount: 1, currency: "USD", status: "SUCCESS" }));
    expect(ghost).toMatchObject({ status: 200, outcome: "ignored" });
    expect(await eventTypes(p.id)).toEqual([]);
  });
});

describe("expiry", () => {
  let m: TestMerchant;
  beforeAll(async () => {
    m = await seedTestMerchant();
  });
  afterEach(() => {
    sandbox.resetFaults();
    sandbox.clock = systemClock;
  });

  async function expireAt(p: Payment, offsetMs: number) {
    const clock = manualClock(new Date(p.expiresAt.getTime() + offsetMs));
    sandbox.clock = clock;
    return expirePayment({ db: await getDb(), clock, providers }, p.id);
  }

  it("does nothing before expires_at", async () => {
    const p = await seedPayment(m, "awaiting_customer", { msisdn: "263770000003" });
    expect((await expireAt(p, -1_000))!.status).toBe("awaiting_customer");
  });

  it("expires a payment the provider still calls pending", async () => {
    const p = await seedPayment(m, "awaiting_customer", { msisdn: "263770000003" });
    expect((await expireAt(p, 0))!.status).toBe("expired");
    expect(await eventTypes(p.id)).toEqual(["payment.expired"]);
  });

  it("succeeds a payment the provider says was paid (a lost callback)", async () => {
    const p = await seedPayment(m, "awaiting_customer", { msisdn: "263770000001" });
    expect((await expireAt(p, 0))!.status).toBe("succeeded");
    expect(await eventTypes(p.id)).toEqual(["payment.succeeded"]);
  });

  it("fails a payment the provider declined", async () => {
    const p = await seedPayment(m, "awaiting_customer", { msisdn: "263770000002" });
    expect(await expireAt(p, 0)).toMatchObject({ status: "failed", failureCode: "insufficient_funds" });
  });

  it("makes the payment unknown, never expired or failed, when the provider cannot answer", async () => {
    const p = await seedPayment(m, "awaiting_customer", { msisdn: "263770000005" });
    expect((await expireAt(p, 0))!.status).toBe("unknown");
    const q = await seedPayment(m, "awaiting_customer", { msisdn: "263770000003" });
    sandbox.faults.statusQuery = "error";
    expect((await expireAt(q, 0))!.status).toBe("unknown");
    expect(await eventTypes(p.id)).toEqual([]);
  });

  it("a payment whose status query throws holds up none of the others in its batch, and is tried again later", async () => {
    // A fault of ours, not the provider's being unavailable (an adapter that cannot read an answer):
    // it propagates. The batch it is in must still expire, settle or fail the others.
    const broken = await seedPayment(m, "awaiting_customer", { msisdn: "263770000003" });
    const others = [
      await seedPayment(m, "awaiting_customer", { msisdn: "263770000003" }),
      await seedPayment(m, "awaiting_customer", { msisdn: "263770000001" }),
      await seedPayment(m, "awaiting_customer", { msisdn: "263770000002" }),
    ];
    const throwing: WalletProvider = Object.assign(Object.create(sandbox) as WalletProvider, {
      queryStatus: (q: Parameters<WalletProvider["queryStatus"]>[0], signal: AbortSignal) =>
        q.idempotencyKey === broken.id ? Promise.reject(new TypeError("cannot read the answer")) : sandbox.queryStatus(q, signal),
    });
    const registry: ProviderRegistry = { forPayment: () => throwing, byName: () => throwing };
    const clock = manualClock(new Date(broken.expiresAt.getTime() + 1_000));
    sandbox.clock = clock;
    await expect(expirePayments({ db: await getDb(), clock, providers: registry }, [broken, ...others].map((p) => p.id))).rejects.toThrow();
    const db = await getDb();
    const status = async (id: string) => (await db.select({ status: payments.status }).from(payments).where(eq(payments.id, id)))[0]!.status;
    expect(await Promise.all(others.map((p) => status(p.id)))).toEqual(["expired", "succeeded", "failed"]);
    expect(await status(broken.id)).toBe("awaiting_customer");
    expect(await eventTypes(broken.id)).toEqual([]);
  });

  it("is safe to run twice or late", async () => {
    const p = await seedPayment(m, "awaiting_customer", { msisdn: "263770000003" });
    await expireAt(p, 5 * HOUR);
    await expireAt(p, 6 * HOUR);
    expect(await eventTypes(p.id)).toEqual(["payment.expired"]);
  });
});

describe("reconciliation of unknown payments", () => {
  let m: TestMerchant;
  beforeAll(async () => {
    m = await seedTestMerchant();
  });
  afterEach(() => {
    sandbox.resetFaults();
    sandbox.clock = systemClock;
  });
  const ctxAt = async (at: Date) => {
    const clock = manualClock(at);
    sandbox.clock = clock;
    return { db: await getDb(), clock, providers };
  };

  it("applies a late success (…04 times out, then succeeds)", async () => {
    const p = await seedPayment(m, "unknown", { msisdn: "263770000004" });
    expect((await reconcilePayment(await ctxAt(new Date(p.createdAt.getTime() + 1_000)), p.id))!.status).toBe("unknown");
    expect((await reconcilePayment(await ctxAt(new Date(p.createdAt.getTime() + 11_000)), p.id))!.status).toBe("succeeded");
    expect(await eventTypes(p.id)).toEqual(["payment.succeeded"]);
  });

  it("backs off between questions while the provider cannot answer", async () => {
    const p = await seedPayment(m, "unknown", { msisdn: "263770000005" });
    const t0 = p.createdAt.getTime();
    const first = await reconcilePayment(await ctxAt(new Date(t0)), p.id);
    const second = await reconcilePayment(await ctxAt(new Date(t0)), p.id);
    expect(first).toMatchObject({ status: "unknown", checkAttempts: 1 });
    expect(second!.checkAttempts).toBe(2);
    expect(second!.nextCheckAt!.getTime() - t0).toBeGreaterThan(first!.nextCheckAt!.getTime() - t0);
  });

  it("a check that read the payment unknown leaves the schedule of its unresolved flag, set meanwhile, alone", async () => {
    const p = await seedPayment(m, "unknown", { msisdn: "263770000005" });
    const at = new Date(p.unknownSince!.getTime() + 24 * HOUR);
    // The 24 h timer flags it while this check (which read it before) waits on the provider.
    const flagged = (await markUnresolved(await ctxAt(at), p.id))!;
    expect(flagged).toMatchObject({ status: "unresolved", checkAttempts: 0 });
    // (The check's clock a moment earlier: the instance it runs on read it just before 24 h.)
    const checked = await reconcileClaimed(await ctxAt(new Date(at.getTime() - 1_000)), p);
    expect(checked).toMatchObject({ status: "unresolved", checkAttempts: 0, nextCheckAt: flagged.nextCheckAt });
  });

  it("expires an unknown payment the provider calls pending after its expiry", async () => {
    const p = await seedPayment(m, "unknown", { msisdn: "263770000003" });
    expect((await reconcilePayment(await ctxAt(new Date(p.expiresAt.getTime() + 1)), p.id))!.status).toBe("expired");
  });

  it("flags 24 h of unknown as unresolved, then keeps asking and applies a late answer", async () => {
    const p = await seedPayment(m, "unknown", { msisdn: "263770000005" });
    const before = await markUnresolved(await ctxAt(new Date(p.unknownSince!.getTime() + 24 * HOUR - 1)), p.id);
    expect(before!.status).toBe("unknown");
    const flagged = await reconcilePayment(await ctxAt(new Date(p.unknownSince!.getTime() + 24 * HOUR)), p.id);
    expect(flagged!.status).toBe("unresolved");
    expect(flagged!.nextCheckAt).not.toBeNull();
    expect(await eventTypes(p.id)).toEqual(["payment.unresolved"]);

    // The provider finally answers (here: through a callback, signed now).
    sandbox.clock = systemClock;
    const receipt = await receiveProviderCallback({ db: await getDb(), clock: systemClock, providers }, { providerName: "sandbox", ...callbackFor(p, "SUCCESS") });
    expect(receipt.outcome).toBe("applied");
    // Both, once each (read without an order: the flag's id is dated on this test's clock, a day ahead).
    expect((await eventTypes(p.id)).sort()).toEqual(["payment.succeeded", "payment.unresolved"]);
  });

  it("following its own check schedule, flags unresolved at 24 h exactly, not at the next backoff step", async () => {
    const p = await seedPayment(m, "unknown", { msisdn: "263770000005" });
    const due = p.unknownSince!.getTime() + 24 * HOUR;
    let at = p.nextCheckAt!;
    let checks = 0;
    for (;;) {
      const after = (await reconcilePayment(await ctxAt(at), p.id))!;
      checks++;
      if (after.status !== "unknown") {
        expect(after.status).toBe("unresolved");
        break;
      }
      expect(after.nextCheckAt!.getTime()).toBeLessThanOrEqual(due);
      at = after.nextCheckAt!;
    }
    expect(at.getTime()).toBe(due);
    // 10 s, 30 s, 1, 2, 5, 10, 30 min, then hourly: about 30 checks in the day.
    expect(checks).toBeGreaterThan(20);
    expect(checks).toBeLessThan(40);
  });

  it("never expires an unresolved payment", async () => {
    const p = await seedPayment(m, "unresolved", { msisdn: "263770000003" });
    expect((await reconcilePayment(await ctxAt(new Date(p.expiresAt.getTime() + 48 * HOUR)), p.id))!.status).toBe("unresolved");
  });
});
