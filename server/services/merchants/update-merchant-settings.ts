import { eq } from "drizzle-orm";
import { merchants, type Merchant } from "@/db/schema";
import type { ServiceContext } from "@/server/context";
import { invalidParam } from "@/server/domain/errors";
import { FEE_BEARERS, type FeeBearer } from "@/server/domain/fees";
import { changedFields } from "@/server/domain/security-log";
import { recordSecurityEvent } from "@/server/services/security-log/record-security-event";
// The database checks the range too; checking first lets the answer name the field.
import { PAYMENT_EXPIRY_MAX_SECONDS, PAYMENT_EXPIRY_MIN_SECONDS } from "@/server/domain/merchant-settings";
import { allowedValues } from "@/server/domain/wording";

export type MerchantSettingsInput = { feeBearer?: FeeBearer; paymentExpirySeconds?: number };

/**
 * Who bears the fee and how long a payment waits for the customer's PIN. They apply to both
 * environments and to payments created from now on; payments already made keep their fee and
 * expiry. /v1 requests may use the old values for the few seconds their key cache holds them.
 */
export async function updateMerchantSettings(ctx: ServiceContext, input: MerchantSettingsInput): Promise<Merchant> {
  const changes: Partial<Pick<Merchant, "feeBearer" | "paymentExpirySeconds">> = {};
  if (input.feeBearer !== undefined) {
    if (!(FEE_BEARERS as readonly string[]).includes(input.feeBearer)) throw invalidParam("fee_bearer", `fee_bearer must be ${allowedValues(FEE_BEARERS)}.`);
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
  return ctx.db.transaction(async (tx) => {
    // Locked, so the log's "from" is what this change replaced.
    const [before] = await tx.select().from(merchants).where(eq(merchants.id, ctx.merchant.id)).for("update");
    const [row] = await tx.update(merchants).set(changes).where(eq(merchants.id, ctx.merchant.id)).returning();
    const changed = changedFields(
      { fee_bearer: before!.feeBearer, payment_expiry_seconds: before!.paymentExpirySeconds },
      { fee_bearer: row!.feeBearer, payment_expiry_seconds: row!.paymentExpirySeconds },
    );
    if (Object.keys(changed).length > 0) await recordSecurityEvent(tx, ctx, { merchantId: ctx.merchant.id, action: "settings.updated", detail: changed });
    return row!;
  });
}
