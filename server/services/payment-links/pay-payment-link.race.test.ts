import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { getDb } from "@/db/client";
import { payments } from "@/db/schema";
import { systemClock } from "@/server/clock";
import { providers } from "@/server/providers/registry";
import { seedTestMerchant } from "@/server/testing/fixtures";
import { createPaymentLink } from "./create-payment-link";
import { payPaymentLink } from "./pay-payment-link";

// Proves something on PostgreSQL (CI sets DATABASE_URL), where the attempts really overlap;
// PGlite serialises them and checks the same outcome.
describe("customers paying one single-use link at once", () => {
  it("ten at once make exactly one payment; the other nine are told link_used", async () => {
    const m = await seedTestMerchant();
    const link = await createPaymentLink(await m.ctx(), { amount: 900, currency: "USD", description: "One seat", singleUse: true });
    const base = { db: await getDb(), clock: systemClock, providers };
    const outcomes = await Promise.allSettled(
      Array.from({ length: 10 }, (_, i) => payPaymentLink(base, { linkId: link.id, msisdn: `07712345${String(i).padStart(2, "0")}`, idempotencyKey: `customer-${i}` })),
    );

    const made = await base.db.select().from(payments).where(eq(payments.paymentLinkId, link.id));
    expect(made).toHaveLength(1);
    const won = outcomes.filter((o) => o.status === "fulfilled");
    expect(won).toHaveLength(1);
    expect((won[0] as PromiseFulfilledResult<{ id: string }>).value.id).toBe(made[0]!.id);
    const codes = outcomes.flatMap((o) => (o.status === "rejected" ? [(o.reason as { code?: string }).code] : []));
    expect(codes).toEqual(Array.from({ length: 9 }, () => "link_used"));
  });

  it("a multi-use link takes them all", async () => {
    const m = await seedTestMerchant();
    const link = await createPaymentLink(await m.ctx(), { amount: 900, currency: "USD", description: "Donation" });
    const base = { db: await getDb(), clock: systemClock, providers };
    const outcomes = await Promise.all(
      Array.from({ length: 10 }, (_, i) => payPaymentLink(base, { linkId: link.id, msisdn: "0771234567", idempotencyKey: `donor-${i}` })),
    );
    expect(new Set(outcomes.map((p) => p.id)).size).toBe(10);
    expect(await base.db.select().from(payments).where(eq(payments.paymentLinkId, link.id))).toHaveLength(10);
  });
});
