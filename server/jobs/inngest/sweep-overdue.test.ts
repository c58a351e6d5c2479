import { InngestTestEngine } from "@inngest/test";
import { inArray } from "drizzle-orm";
import { afterEach, describe, expect, it, vi } from "vitest";
import { getDb } from "@/db/client";
import { payments } from "@/db/schema";
import { sandbox } from "@/server/providers/registry";
import { seedPayment, seedTestMerchant } from "@/server/testing/fixtures";
import { CLAIM_SIZE } from "../due-batch";
import { sweepOverdueFn } from "./sweep-overdue";

// The sweep claims whatever is due in the whole database; tests share one, so each confines its
// sweep to its own merchant, as the local runner's tests do.
const scope = vi.hoisted(() => ({ merchantId: undefined as string | undefined }));
vi.mock("./deps", async (real) => {
  const mod = await real<typeof import("./deps")>();
  return { jobDeps: async () => ({ ...(await mod.jobDeps()), merchantId: scope.merchantId }) };
});

const HOUR = 3_600_000;
/**
 * The parts that are not the payments' own, mocked: their work is webhook delivery, refunds,
 * payouts and keys. A new list each time: the test engine adds each step it ran to the list given.
 */
const otherParts = () => [
  { id: "refunds-overdue", handler: () => 0 },
  { id: "relay-events", handler: () => [] },
  { id: "deliver-overdue", handler: () => 0 },
  { id: "pay-due-test-settlements", handler: () => 0 },
  { id: "forget-expired-idempotency-keys", handler: () => 0 },
  { id: "forget-old-payment-days", handler: () => 0 },
];

async function statuses(ids: string[]) {
  const rows = await (await getDb()).select({ id: payments.id, status: payments.status }).from(payments).where(inArray(payments.id, ids));
  return new Map(rows.map((r) => [r.id, r.status]));
}

describe("sweep-overdue", () => {
  afterEach(() => {
    vi.restoreAllMocks();
    scope.merchantId = undefined;
  });

  it("clears a backlog of more than one batch in one run (after an outage of the scheduler, every expiry is overdue)", async () => {
    const m = await seedTestMerchant();
    scope.merchantId = m.merchant.id;
    const at = new Date(Date.now() - HOUR);
    const due = await Promise.all(
      Array.from({ length: CLAIM_SIZE.expiry + 20 }, () => seedPayment(m, "awaiting_customer", { msisdn: "263770000003", at, expiresInMs: 1_000 })),
    );
    const { result } = await new InngestTestEngine({ function: sweepOverdueFn }).execute({ steps: otherParts() });
    expect(result).toMatchObject({ expired: due.length });
    expect(new Set((await statuses(due.map((p) => p.id))).values())).toEqual(new Set(["expired"]));
  });

  it("one payment whose check throws holds up neither the other checks nor the rest of the sweep", async () => {
    const m = await seedTestMerchant();
    scope.merchantId = m.merchant.id;
    const at = new Date(Date.now() - HOUR);
    // Checked first (the oldest due), and its question throws: a fault of ours, not the provider's.
    const broken = await seedPayment(m, "unknown", { msisdn: "263770000001", at: new Date(at.getTime() - HOUR) });
    const others = await Promise.all(Array.from({ length: 3 }, () => seedPayment(m, "unknown", { msisdn: "263770000001", at })));
    const ask = sandbox.queryStatus.bind(sandbox);
    vi.spyOn(sandbox, "queryStatus").mockImplementation((q, signal) =>
      q.idempotencyKey === broken.id ? Promise.reject(new TypeError("cannot read the answer")) : ask(q, signal),
    );
    const t = new InngestTestEngine({ function: sweepOverdueFn });
    const { result, error, ctx } = await t.execute({ steps: otherParts() });
    expect(error).toBeUndefined();
    expect(result).toMatchObject({ reconciled: 4 });
    const now = await statuses([broken.id, ...others.map((p) => p.id)]);
    expect(others.map((p) => now.get(p.id))).toEqual(["succeeded", "succeeded", "succeeded"]);
    expect(now.get(broken.id)).toBe("unknown");
    // The parts after it ran.
    expect(ctx.step.run).toHaveBeenCalledWith("forget-expired-idempotency-keys", expect.any(Function));
  });

  it("asks the provider about several unknown payments at once, not one after another", async () => {
    // While a provider is slow, checks one at a time take a timeout each: 100 of them, over 8 minutes.
    const m = await seedTestMerchant();
    scope.merchantId = m.merchant.id;
    const at = new Date(Date.now() - HOUR);
    const due = await Promise.all(Array.from({ length: 8 }, () => seedPayment(m, "unknown", { msisdn: "263770000001", at })));
    let inFlight = 0;
    let most = 0;
    const ask = sandbox.queryStatus.bind(sandbox);
    vi.spyOn(sandbox, "queryStatus").mockImplementation(async (q, signal) => {
      most = Math.max(most, ++inFlight);
      await new Promise((r) => setTimeout(r, 100));
      inFlight--;
      return ask(q, signal);
    });
    const { result } = await new InngestTestEngine({ function: sweepOverdueFn }).execute({ steps: otherParts() });
    expect(result).toMatchObject({ reconciled: due.length });
    expect(most).toBeGreaterThan(1);
  });
});
