import { and, eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { getDb } from "@/db/client";
import { checkoutSessions, payments } from "@/db/schema";
import { systemClock } from "@/server/clock";
import { providers } from "@/server/providers/registry";
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
