import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { getDb } from "@/db/client";
import { merchants } from "@/db/schema";
import { seedTestMerchant } from "@/server/testing/fixtures";
import { updateMerchantSettings } from "./update-merchant-settings";

const stored = async (id: string) => (await (await getDb()).select().from(merchants).where(eq(merchants.id, id)))[0]!;

describe("updateMerchantSettings", () => {
  it("changes fee bearer and payment expiry of this merchant only", async () => {
    const m = await seedTestMerchant();
    const other = await seedTestMerchant();
    const updated = await updateMerchantSettings(await m.ctx(), { feeBearer: "customer", paymentExpirySeconds: 600 });
    expect(updated).toMatchObject({ feeBearer: "customer", paymentExpirySeconds: 600 });
    expect(await stored(m.merchant.id)).toMatchObject({ feeBearer: "customer", paymentExpirySeconds: 600 });
    expect(await stored(other.merchant.id)).toMatchObject({ feeBearer: "merchant", paymentExpirySeconds: 180 });
    // A partial change leaves the other setting alone.
    await updateMerchantSettings(await m.ctx(true), { paymentExpirySeconds: 30 });
    expect(await stored(m.merchant.id)).toMatchObject({ feeBearer: "customer", paymentExpirySeconds: 30 });
  });

  it("accepts the bounds and refuses what the database check would, naming the field", async () => {
    const m = await seedTestMerchant();
    const ctx = await m.ctx();
    await expect(updateMerchantSettings(ctx, { paymentExpirySeconds: 3600 })).resolves.toMatchObject({ paymentExpirySeconds: 3600 });
    for (const bad of [29, 3601, 90.5, Number.NaN]) {
      await expect(updateMerchantSettings(ctx, { paymentExpirySeconds: bad })).rejects.toMatchObject({ code: "parameter_invalid", param: "payment_expiry_seconds" });
    }
    await expect(updateMerchantSettings(ctx, { feeBearer: "nobody" as never })).rejects.toMatchObject({ code: "parameter_invalid", param: "fee_bearer" });
    expect(await stored(m.merchant.id)).toMatchObject({ feeBearer: "merchant", paymentExpirySeconds: 3600 });
  });
});
