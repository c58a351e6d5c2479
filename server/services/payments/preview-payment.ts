import { quoteFee, type FeeQuote } from "@/server/domain/fees";
import type { Currency, PaymentMethod } from "@/server/domain/money";
import type { ServiceContext } from "@/server/context";

/** The fee a payment would carry: the same function creation uses, so the quote is the charge. */
export async function previewPayment(
  ctx: ServiceContext,
  input: { amount: number; currency: Currency; method: PaymentMethod },
): Promise<FeeQuote> {
  return quoteFee(ctx.merchant.feePlan, ctx.merchant.feeBearer, input.amount, input.currency);
}
