import { eq } from "drizzle-orm";
import { merchants, type Merchant } from "@/db/schema";
import type { ServiceContext } from "@/server/context";
import { invalidParam } from "@/server/domain/errors";
import { FEE_BEARERS, type FeeBearer } from "@/server/domain/fees";
// The database checks the range too; checking first lets the answer name the field.
import { PAYMENT_EXPIRY_MAX_SECONDS, PAYMENT_EXPIRY_MIN_SECONDS } from "@/server/domain/merchant-settings";

export type MerchantSettingsInput = { feeBearer?: FeeBearer; paymentExpirySeconds?: number };

/**
 * Who bears the fee and how long a payment waits for the customer's PIN. They apply to both
 * environments and to payments created from now on; payments already made keep their fee and
 * expiry. /v1 requests may use the old values for the few seconds their key cache holds them.
 */
export async function updateMerchantSettings(ctx: ServiceContext, input: MerchantSettingsInput): Promise<Merchant> {
  const changes: Partial<Pick<Merchant, "feeBearer" | "paymentExpirySeconds">> = {};
  if (input.feeBearer !== undefined) {
    if (!(FEE_BEARERS as readonly string[]).includes(input.feeBearer)) throw invalidParam("fee_bearer", `fee_bearer must be one of ${FEE_BEARERS.join(", ")}.`);
    changes.feeBearer = input.feeBearer;
  }
  if (input.paymentExpirySeconds !== undefined) {
    const s = input.paymentExpirySeconds;
    if (!Number.isInteger(s) || s < PAYMENT_EXPIRY_MIN_SECONDS || s > PAYMENT_EXPIRY_MAX_SECONDS) {
      throw invalidParam("payment_expiry_seconds", `payment_expiry_seconds must be a whole number from ${PAYMENT_EXPIRY_MIN_SECONDS} to ${PAYMENT_EXPIRY_MAX_SECONDS}.`);
    }
    changes.paymentExpirySeconds = s;
  }
  if (Object.keys(changes).length === 0) return ctx.merchant;
  const [row] = await ctx.db.update(merchants).set(changes).where(eq(merchants.id, ctx.merchant.id)).returning();
  return row!;
}
