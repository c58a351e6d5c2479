import { eq } from "drizzle-orm";
import { afterEach, describe, expect, it } from "vitest";
import { getDb } from "@/db/client";
import { refunds } from "@/db/schema";
import { manualClock } from "@/server/clock";
import { REFUND_SUBMIT_LEASE_S } from "@/server/domain/refund-schedule";
import type { ProviderRegistry } from "@/server/providers/port";
import { providers, sandbox } from "@/server/providers/registry";
import { seedSucceededPayment, seedTestMerchant } from "@/server/testing/fixtures";
import { sandboxWith } from "@/server/testing/providers";
import { advanceRefund } from "./advance-refund";
import { createRefund } from "./create-refund";

/** The process dies right after the provider has taken the refund, before its answer is recorded. */
const dyingAfterSubmit = sandboxWith({
  refund: async (r, signal) => {
    await sandbox.refund(r, signal);
    throw new Error("process killed before the provider's answer was recorded");
  },
});

/** A provider that refuses a copy of a refund it was sent (no dedupe of refusals); its answers take a moment. */
function refusingCopies(): ProviderRegistry {
  const seen = new Set<string>();
  return sandboxWith({
    refund: async (r, signal) => {
      if (seen.has(r.idempotencyKey)) return { outcome: "rejected", failureCode: "refund_rejected", message: "duplicate refund request" };
      seen.add(r.idempotencyKey);
      await new Promise((resolve) => setTimeout(resolve, 300));
      return sandbox.refund(r, signal);
    },
  });
}

/** A second, full refund of the payment: allowed only if the first one's amount was freed. */
async function secondFullRefund(ctx: Parameters<typeof createRefund>[0], paymentId: string): Promise<string> {
  return createRefund({ ...ctx, providers }, { paymentId, idempotencyKey: `second-${paymentId}` }).then(
    (r) => r.status,
    (e: { code?: string }) => e.code ?? "thrown",
  );
}

describe("a refund whose submission may have reached the provider unrecorded", () => {
  afterEach(() => sandbox.resetFaults());

  it.each(["the due work, once the lease ends", "a retry with the same Idempotency-Key"] as const)(
    "is not failed when the provider refuses the resubmission (%s): the provider is asked, and money out never exceeds money in",
    async (path) => {
      const m = await seedTestMerchant();
      const clock = manualClock(new Date());
      const ctx = await m.ctx(false, clock);
      const p = await seedSucceededPayment(m, { msisdn: "263770000001", amount: 1_000 });

      // The request: row committed, the submission reaches the provider, then the process dies.
      await expect(createRefund({ ...ctx, providers: dyingAfterSubmit }, { paymentId: p.id, idempotencyKey: "refund-1" })).rejects.toThrow(/process killed/);
      const [orphan] = await (await getDb()).select().from(refunds).where(eq(refunds.paymentId, p.id));
      expect(orphan).toMatchObject({ status: "pending", submittedAt: null, submitAttempts: 1 });
      expect(sandbox.refundsTaken(p.id)).toEqual([orphan!.id]);

      // Before the lease ends, no one else submits it: the request may still be alive.
      expect(await createRefund({ ...ctx, providers }, { paymentId: p.id, idempotencyKey: "refund-1" })).toMatchObject({ status: "pending", submitAttempts: 1 });
      expect(sandbox.refundCalls(orphan!.id)).toBe(1);

      // After it, the provider refuses the copy.
      sandbox.faults.refund = "rejected";
      clock.advance(REFUND_SUBMIT_LEASE_S * 1000 + 1);
      const after =
        path === "the due work, once the lease ends"
          ? await advanceRefund({ ...ctx, providers }, orphan!.id)
          : await createRefund({ ...ctx, providers }, { paymentId: p.id, idempotencyKey: "refund-1" });
      sandbox.resetFaults();

      expect(after).toMatchObject({ id: orphan!.id, submitAttempts: 2 });
      expect(after!.status).not.toBe("failed");
      expect(sandbox.refundsTaken(p.id)).toHaveLength(1);
      expect(await secondFullRefund(ctx, p.id)).toBe("refund_amount_invalid");
    },
  );

  it("a retry whose body changed after the request died (its key's record went with it) is refused, not answered with the other refund", async () => {
    const m = await seedTestMerchant();
    const ctx = await m.ctx(false, manualClock(new Date()));
    const p = await seedSucceededPayment(m, { msisdn: "263770000001", amount: 1_000 });
    await expect(createRefund({ ...ctx, providers: dyingAfterSubmit }, { paymentId: p.id, amount: 100, idempotencyKey: "refund-2", metadata: { order: "A" } })).rejects.toThrow(/process killed/);
    for (const changed of [{ amount: 200 }, { amount: 100, reason: "duplicate" as const }, { amount: 100, metadata: { order: "B" } }, { amount: 100 }]) {
      await expect(createRefund({ ...ctx, providers }, { paymentId: p.id, idempotencyKey: "refund-2", ...changed })).rejects.toMatchObject({ code: "idempotency_key_reused" });
    }
    // The same request again (an amount left out is the one taken then) finds its refund.
    for (const same of [{ amount: 100 }, {}]) {
      expect(await createRefund({ ...ctx, providers }, { paymentId: p.id, idempotencyKey: "refund-2", metadata: { order: "A" }, ...same })).toMatchObject({ amount: 100 });
    }
    expect(await (await getDb()).select().from(refunds).where(eq(refunds.paymentId, p.id))).toHaveLength(1);
  });

  it("two tries of one refund at once (a double click, one key) send one submission: none is refused as a copy", async () => {
    const m = await seedTestMerchant();
    const ctx = { ...(await m.ctx()), providers: refusingCopies() };
    const p = await seedSucceededPayment(m, { msisdn: "263770000001", amount: 1_000 });

    const tries = await Promise.all([1, 2].map(() => createRefund(ctx, { paymentId: p.id, idempotencyKey: "dashboard:click" })));
    expect(tries[0]!.id).toBe(tries[1]!.id);
    const [row] = await (await getDb()).select().from(refunds).where(eq(refunds.id, tries[0]!.id));
    expect(row).toMatchObject({ submitAttempts: 1 });
    expect(row!.status).not.toBe("failed");
    expect(sandbox.refundsTaken(p.id)).toHaveLength(1);
    expect(await secondFullRefund(ctx, p.id)).toBe("refund_amount_invalid");
  });

  it("a refusal of its first submission fails the refund, and frees its amount", async () => {
    const m = await seedTestMerchant();
    const ctx = { ...(await m.ctx()), providers };
    const p = await seedSucceededPayment(m, { msisdn: "263770000001", amount: 1_000 });
    sandbox.faults.refund = "rejected";
    const refused = await createRefund(ctx, { paymentId: p.id, idempotencyKey: "refused-once" });
    sandbox.resetFaults();
    expect(refused).toMatchObject({ status: "failed", failureCode: "refund_rejected", submitAttempts: 1 });
    expect(await secondFullRefund(ctx, p.id)).toBe("pending");
  });
});
