import { eq } from "drizzle-orm";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { getDb } from "@/db/client";
import { events, payments, refunds, type Refund } from "@/db/schema";
import { manualClock, systemClock } from "@/server/clock";
import { claimDueRefunds, nextDueAt } from "@/server/jobs/due-work";
import { LocalRunner } from "@/server/jobs/local-runner";
import { REFUND_SUBMIT_LEASE_S } from "@/server/domain/refund-schedule";
import { providers, sandbox } from "@/server/providers/registry";
import { sandboxReference } from "@/server/providers/sandbox/client";
import { toRefundResource } from "@/server/schemas/refunds";
import { api } from "@/server/testing/api";
import { setEnv } from "@/server/testing/env";
import { seedPendingRefund, seedSucceededPayment, seedTestMerchant, type TestMerchant } from "@/server/testing/fixtures";
import { testPoster } from "@/server/testing/webhooks";
import { inRolledBackTransaction } from "@/server/testing/rolled-back";
import { onJobSignal, type JobSignal } from "../job-signals";
import { createRefund } from "./create-refund";

async function refundRow(id: string): Promise<Refund> {
  const db = await getDb();
  return (await db.select().from(refunds).where(eq(refunds.id, id)))[0]!;
}

async function eventsOf(id: string) {
  const db = await getDb();
  return db.select().from(events).where(eq(events.objectId, id));
}

async function amountRefunded(paymentId: string) {
  const db = await getDb();
  return (await db.select({ a: payments.amountRefunded }).from(payments).where(eq(payments.id, paymentId)))[0]!.a;
}

describe("refund lifecycle with the sandbox", () => {
  let m: TestMerchant;
  beforeAll(async () => {
    m = await seedTestMerchant();
  });
  afterEach(() => {
    sandbox.resetFaults();
    sandbox.clock = systemClock;
    sandbox.delayScale = 1;
    onJobSignal(undefined);
  });

  async function setup() {
    const db = await getDb();
    const clock = manualClock(new Date());
    sandbox.clock = clock;
    const runner = new LocalRunner({ db, clock, providers, webhooks: testPoster(), merchantId: m.merchant.id });
    return { clock, runner, ctx: await m.ctx(false, clock) };
  }

  it("a refund of a …01 payment succeeds through the runner: one refund.succeeded, amount_refunded updated", async () => {
    const { clock, runner, ctx } = await setup();
    // The sandbox takes 10 s, so the first status check finds it still processing.
    sandbox.delayScale = 5;
    const signals: JobSignal[] = [];
    onJobSignal((s) => signals.push(s));
    const p = await seedSucceededPayment(m, { msisdn: "263770000001", amount: 1_000 });
    // The merchant's own ids, set on the payment: its refund's webhooks carry them too.
    await (await getDb()).update(payments).set({ metadata: { order_id: "1001", channel: "web" } }).where(eq(payments.id, p.id));
    const created = await createRefund(ctx, { paymentId: p.id, amount: 400, metadata: { channel: "phone" } });
    expect(created.metadata).toEqual({ order_id: "1001", channel: "phone" });
    expect(created).toMatchObject({ status: "pending", providerReference: sandboxReference(created.id) });
    expect(signals).toEqual([{ type: "refund.created", refundId: created.id, dueAt: created.nextCheckAt }]);

    expect(await runner.tick()).not.toContain(created.id);
    clock.advance(3_000);
    expect(await runner.tick()).toContain(created.id);
    const stillPending = await refundRow(created.id);
    expect(stillPending).toMatchObject({ status: "pending", checkAttempts: 1 });
    expect(stillPending.nextCheckAt!.getTime()).toBeGreaterThan(clock.now().getTime());

    clock.advance(10_000);
    expect(await runner.tick()).toContain(created.id);
    const done = await refundRow(created.id);
    expect(done).toMatchObject({ status: "succeeded", nextCheckAt: null, succeededAt: clock.now() });
    expect(await amountRefunded(p.id)).toBe(400);
    expect((await api("GET", `/v1/payments/${p.id}`, { key: m.keys.test })).body).toMatchObject({ amount: 1_000, amount_refunded: 400 });

    clock.advance(60_000);
    expect(await runner.tick()).not.toContain(created.id);
    const evts = await eventsOf(created.id);
    expect(evts.map((e) => e.type)).toEqual(["refund.succeeded"]);
    expect(evts[0]!.data).toEqual({ object: JSON.parse(JSON.stringify(toRefundResource(done))), previous_attributes: { status: "pending" } });
    expect((evts[0]!.data as { object: { metadata: unknown } }).object.metadata).toEqual({ order_id: "1001", channel: "phone" });
    expect(evts[0]!.merchantId).toBe(m.merchant.id);
  });

  it("a refund of a …07 payment fails once with the provider's reason; amount_refunded is unchanged and the amount is free again", async () => {
    const { clock, runner, ctx } = await setup();
    const p = await seedSucceededPayment(m, { msisdn: "263770000007", amount: 1_000 });
    const created = await createRefund(ctx, { paymentId: p.id });
    clock.advance(3_000);
    await runner.tick();
    clock.advance(60_000);
    await runner.tick();
    const done = await refundRow(created.id);
    expect(done).toMatchObject({ status: "failed", failureCode: "refund_declined", failedAt: new Date(clock.now().getTime() - 60_000) });
    expect(done.failureMessage).toMatch(/could not credit the customer's wallet/);
    expect((await eventsOf(created.id)).map((e) => e.type)).toEqual(["refund.failed"]);
    expect(await amountRefunded(p.id)).toBe(0);
    expect((await createRefund(ctx, { paymentId: p.id })).amount).toBe(1_000);
  });

  it("a provider that took a refund and then has no record of it: the refund stays pending and holds its amount (failing it would free a second refund)", async () => {
    const { clock, runner, ctx } = await setup();
    const p = await seedSucceededPayment(m, { msisdn: "263770000001", amount: 1_000 });
    const created = await createRefund(ctx, { paymentId: p.id });
    expect(created.submittedAt).not.toBeNull();
    sandbox.faults.refund = "forgotten";
    clock.advance(3_000);
    expect(await runner.tick()).toContain(created.id);
    expect(await refundRow(created.id)).toMatchObject({ status: "pending", checkAttempts: 1 });
    expect((await api("POST", "/v1/refunds", { key: m.keys.test, body: { payment: p.id }, idempotencyKey: `after-${p.id}` })).body.error.code).toBe("refund_amount_invalid");
    // Once the provider answers again, the refund settles.
    sandbox.resetFaults();
    clock.advance(10_000);
    await runner.tick();
    expect((await refundRow(created.id)).status).toBe("succeeded");
  });

  it("a provider unreachable at submission: pending and unsubmitted, then submitted once by the due work", async () => {
    const { clock, runner, ctx } = await setup();
    const p = await seedSucceededPayment(m, { msisdn: "263770000001" });
    sandbox.faults.refund = "error";
    const created = await createRefund(ctx, { paymentId: p.id });
    expect(created).toMatchObject({ status: "pending", submittedAt: null, providerReference: null, checkAttempts: 1 });
    expect(sandbox.refundCalls(created.id)).toBe(0);

    // Still down at the next try: still unsubmitted, asked again later.
    clock.advance(10_000);
    expect(await runner.tick()).toContain(created.id);
    expect(await refundRow(created.id)).toMatchObject({ submittedAt: null, checkAttempts: 2 });

    sandbox.resetFaults();
    clock.advance(30_000);
    await runner.tick();
    const submitted = await refundRow(created.id);
    expect(submitted.submittedAt).toEqual(clock.now());
    expect(submitted.providerReference).toBe(sandboxReference(created.id));
    expect(sandbox.refundCalls(created.id)).toBe(1);

    clock.advance(3_000);
    await runner.tick();
    expect((await refundRow(created.id)).status).toBe("succeeded");
    expect((await eventsOf(created.id)).map((e) => e.type)).toEqual(["refund.succeeded"]);
    expect(sandbox.refundsTaken(p.id)).toEqual([created.id]);
  });

  it("an answer lost in a timeout: resubmitted, and the provider still refunds once", async () => {
    const restore = setEnv({ PROVIDER_PUSH_TIMEOUT_MS: "100" });
    try {
      const { clock, runner, ctx } = await setup();
      const p = await seedSucceededPayment(m, { msisdn: "263770000001", amount: 700 });
      sandbox.faults.refund = "timeout";
      const created = await createRefund(ctx, { paymentId: p.id });
      expect(created).toMatchObject({ status: "pending", submittedAt: null });
      sandbox.resetFaults();
      clock.advance(10_000);
      await runner.tick();
      clock.advance(3_000);
      await runner.tick();
      expect(sandbox.refundCalls(created.id)).toBe(2);
      expect(sandbox.refundsTaken(p.id)).toEqual([created.id]);
      expect((await refundRow(created.id)).status).toBe("succeeded");
      expect(await amountRefunded(p.id)).toBe(700);
      expect(await eventsOf(created.id)).toHaveLength(1);
    } finally {
      restore();
    }
  });

  it("an answer lost, then the resubmission refused: the provider is asked, and its refund of the first stands; no second refund is allowed", async () => {
    const restore = setEnv({ PROVIDER_PUSH_TIMEOUT_MS: "100" });
    try {
      const { clock, runner, ctx } = await setup();
      const p = await seedSucceededPayment(m, { msisdn: "263770000001", amount: 1_000 });
      sandbox.faults.refund = "timeout"; // the provider takes it; its answer is lost
      const created = await createRefund(ctx, { paymentId: p.id });
      expect(created).toMatchObject({ status: "pending", submittedAt: null, checkAttempts: 1 });
      sandbox.faults.refund = "rejected"; // and it refuses the copy
      clock.advance(10_000);
      await runner.tick();
      expect(sandbox.refundCalls(created.id)).toBe(2);
      expect(sandbox.refundsTaken(p.id)).toEqual([created.id]);
      // Not failed: the provider said it has the refund, which then completes.
      const row = await refundRow(created.id);
      expect(row.status === "succeeded" || (row.status === "pending" && row.submittedAt !== null)).toBe(true);
      sandbox.resetFaults();
      clock.advance(3_000);
      await runner.tick();
      expect((await refundRow(created.id)).status).toBe("succeeded");
      expect(await amountRefunded(p.id)).toBe(1_000);
      expect((await api("POST", "/v1/refunds", { key: m.keys.test, body: { payment: p.id }, idempotencyKey: `again-${p.id}` })).body.error.code).toBe(
        "refund_amount_invalid",
      );
    } finally {
      restore();
    }
  });

  it("never reached, then refused: asked, the provider has no such refund, so it fails and its amount is free", async () => {
    const { clock, runner, ctx } = await setup();
    const p = await seedSucceededPayment(m, { msisdn: "263770000001", amount: 1_000 });
    sandbox.faults.refund = "error";
    const created = await createRefund(ctx, { paymentId: p.id });
    expect(created).toMatchObject({ status: "pending", submittedAt: null, checkAttempts: 1 });
    sandbox.faults.refund = "rejected";
    clock.advance(10_000);
    await runner.tick();
    expect(await refundRow(created.id)).toMatchObject({ status: "failed", failureCode: "refund_rejected" });
    expect(sandbox.refundsTaken(p.id)).toEqual([]);
    expect((await eventsOf(created.id)).map((e) => e.type)).toEqual(["refund.failed"]);
  });

  it("a request that died before submitting: the runner submits it when the lease runs out, not before", async () => {
    const { clock, runner } = await setup();
    const p = await seedSucceededPayment(m, { msisdn: "263770000001" });
    const orphan = await seedPendingRefund(p, { at: clock.now(), nextCheckAt: new Date(clock.now().getTime() + REFUND_SUBMIT_LEASE_S * 1000) });
    clock.advance(REFUND_SUBMIT_LEASE_S * 1000 - 1);
    expect(await runner.tick()).not.toContain(orphan.id);
    clock.advance(1);
    expect(await runner.tick()).toContain(orphan.id);
    expect(sandbox.refundCalls(orphan.id)).toBe(1);
    expect((await refundRow(orphan.id)).submittedAt).toEqual(clock.now());
  });

  it("a claimed refund is leased: a second claim skips it until the lease ends", async () => {
    const db = await getDb();
    const p = await seedSucceededPayment(m);
    const t0 = new Date();
    const r = await seedPendingRefund(p, { at: t0 });
    const first = await claimDueRefunds(db, t0, 100, { merchantId: m.merchant.id });
    expect(first).toContain(r.id);
    expect(await claimDueRefunds(db, new Date(t0.getTime() + 29_000), 100, { merchantId: m.merchant.id })).not.toContain(r.id);
    expect(await claimDueRefunds(db, new Date(t0.getTime() + 30_000), 100, { merchantId: m.merchant.id })).toContain(r.id);
  });

  it("the runner's next wake-up counts pending refunds", async () => {
    const db = await getDb();
    const p = await seedSucceededPayment(m);
    // Earlier than anything other test files leave due on a shared database (their own old dates,
    // such as a daily run's 1999 test payout), so this refund is the first work due.
    const early = new Date("1970-01-01T00:00:01Z");
    // Inside a transaction that is rolled back: no other test's sweep can see or claim it.
    await inRolledBackTransaction(db, async (tx) => {
      await seedPendingRefund(p, { db: tx, nextCheckAt: early });
      expect((await nextDueAt(tx, new Date())).work).toEqual(early);
    });
  });
});
