import { describe, expect, it } from "vitest";
import { quoteFee } from "@/server/domain/fees";
import { seedTestMerchant } from "@/server/testing/fixtures";
import { dashboardAs } from "../testing";

describe("the payment links list", () => {
  it("says what customers pay through each link at today's fee settings: the fee added when they bear it", async () => {
    for (const feeBearer of ["customer", "merchant"] as const) {
      const m = await seedTestMerchant({ feeBearer });
      const dev = await dashboardAs(m, "developer");
      const made = await dev.paymentLinks.create({ amount: 4_000, currency: "USD", description: "Tuition deposit" });
      const quote = quoteFee(m.merchant.feePlan, feeBearer, 4_000, "USD");
      expect(made).toMatchObject({ amount: 4_000, charged_amount: quote.charged_amount });
      const [listed] = (await dev.paymentLinks.list({ limit: 10 })).data;
      expect(listed).toMatchObject({ id: made.id, amount: 4_000, charged_amount: quote.charged_amount });
      if (feeBearer === "customer") expect(listed!.charged_amount).toBeGreaterThan(4_000);
      else expect(listed!.charged_amount).toBe(4_000);
    }
  });
});
