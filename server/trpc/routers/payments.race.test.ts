import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { getDb } from "@/db/client";
import { refunds } from "@/db/schema";
import { seedSucceededPayment, seedTestMerchant } from "@/server/testing/fixtures";
import { dashboardAs } from "../testing";

// Proves something on PostgreSQL (CI), where the calls really overlap; PGlite serialises them.
describe("dashboard refund form submitted many times at once", () => {
  it("one form's key makes one refund however many clicks arrive together", async () => {
    const m = await seedTestMerchant();
    const p = await seedSucceededPayment(m, { amount: 1_000 });
    const dev = await dashboardAs(m, "developer");
    const key = `double-click-${Date.now().toString(36)}`;
    const results = await Promise.allSettled(Array.from({ length: 8 }, () => dev.payments.refund({ paymentId: p.id, amount: 300, idempotencyKey: key })));
    const ids = results.map((r) => (r.status === "fulfilled" ? r.value.id : String(r.reason)));
    expect(new Set(ids).size).toBe(1);
    expect(ids[0]).toMatch(/^re_/);
    const rows = await (await getDb()).select({ amount: refunds.amount }).from(refunds).where(eq(refunds.paymentId, p.id));
    expect(rows).toEqual([{ amount: 300 }]);
  });
});
