import { and, eq, sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { getDb } from "@/db/client";
import { rowsOf } from "@/db/rows";
import { checkoutSessions, payments } from "@/db/schema";
import { systemClock } from "@/server/clock";
import { providers } from "@/server/providers/registry";
import { newId } from "@/server/domain/ids";
import { seedTestMerchant, uniqueRef } from "@/server/testing/fixtures";
import { createCheckoutSession } from "./create-checkout-session";
import { payCheckoutSession } from "./pay-checkout-session";
import { createPayment } from "../payments/create-payment";

// Proves something on PostgreSQL (CI sets DATABASE_URL), where the attempts really overlap;
// PGlite serialises them and checks the same outcome.
describe("concurrent attempts on one checkout session", () => {
  it("leave exactly one in flight; the others are told payment_in_progress", async () => {
    const m = await seedTestMerchant();
    const session = await createCheckoutSession(await m.ctx(), {
      amount: 1_500,
      currency: "USD",
      reference: uniqueRef("order"),
      successUrl: "https://shop.example/thanks",
    });
    const base = { db: await getDb(), clock: systemClock, providers };
    const outcomes = await Promise.allSettled(
      Array.from({ length: 10 }, (_, i) => payCheckoutSession(base, { sessionId: session.id, msisdn: "0771234567", idempotencyKey: `tap-${i}` })),
    );

    const made = await base.db.select().from(payments).where(eq(payments.checkoutSessionId, session.id));
    expect(made).toHaveLength(1);
    expect(made[0]!.reference).toBe(`${session.reference}#1`);
    expect(outcomes.filter((o) => o.status === "fulfilled")).toHaveLength(1);
    const codes = outcomes.flatMap((o) => (o.status === "rejected" ? [(o.reason as { code?: string }).code] : []));
    expect(codes).toEqual(Array.from({ length: 9 }, () => "payment_in_progress"));
    const [row] = await base.db.select().from(checkoutSessions).where(eq(checkoutSessions.id, session.id));
    expect(row).toMatchObject({ attemptCount: 1, paymentId: made[0]!.id });
  });
});

describe("a session and direct payments created at once with one reference", () => {
  it("let exactly one of them have it", async () => {
    const m = await seedTestMerchant();
    const ctx = await m.ctx();
    const reference = uniqueRef("order");
    const outcomes = await Promise.allSettled(
      Array.from({ length: 10 }, (_, i) =>
        i % 2
          ? createCheckoutSession(ctx, { amount: 1_500, currency: "USD", reference, successUrl: "https://shop.example/thanks" })
          : createPayment(ctx, { amount: 1_500, currency: "USD", method: "wallet", reference, msisdn: "0771234567", idempotencyKey: `k-${i}` }),
      ),
    );
    expect(outcomes.filter((o) => o.status === "fulfilled")).toHaveLength(1);
    const codes = outcomes.flatMap((o) => (o.status === "rejected" ? [(o.reason as { code?: string }).code] : []));
    expect(codes).toEqual(Array.from({ length: 9 }, () => "reference_in_use"));
    const db = await getDb();
    const held = [
      ...(await db.select({ id: payments.id }).from(payments).where(and(eq(payments.merchantId, m.merchant.id), eq(payments.reference, reference)))),
      ...(await db.select({ id: checkoutSessions.id }).from(checkoutSessions).where(and(eq(checkoutSessions.merchantId, m.merchant.id), eq(checkoutSessions.reference, reference)))),
    ];
    expect(held).toHaveLength(1);
  });
});

describe("the reference rule's trigger", () => {
  it("lets one transaction insert 10,000 payments (a bulk import) holding at most 1,024 of its locks", async () => {
    const m = await seedTestMerchant();
    const db = await getDb();
    const at = new Date();
    const rows = Array.from({ length: 10_000 }, (_, i) => ({
      id: newId("payment", at),
      merchantId: m.merchant.id,
      livemode: false,
      amount: 100 + i,
      currency: "USD" as const,
      method: "wallet" as const,
      reference: `bulk-${i}`,
      customerMsisdn: "263771234567",
      network: "ecocash",
      fee: 1,
      feeBearer: "merchant" as const,
      chargedAmount: 100 + i,
      status: "expired" as const,
      provider: "sandbox",
      expiresAt: at,
      expiredAt: at,
      createdAt: at,
      updatedAt: at,
    }));
    const held = await db.transaction(async (tx) => {
      for (let i = 0; i < rows.length; i += 2_000) await tx.insert(payments).values(rows.slice(i, i + 2_000));
      // A lock per reference would be 10,000 here, and a million-row import would exhaust the lock table.
      const [locks] = rowsOf<{ n: number }>(
        await tx.execute(sql`select count(*)::int as n from pg_locks where locktype = 'advisory' and pid = pg_backend_pid()`),
      );
      return locks!.n;
    });
    expect(held).toBeGreaterThan(0);
    expect(held).toBeLessThanOrEqual(1_024);
    const [count] = await db.select({ n: sql<number>`count(*)`.mapWith(Number) }).from(payments).where(eq(payments.merchantId, m.merchant.id));
    expect(count!.n).toBe(10_000);
  });
});
