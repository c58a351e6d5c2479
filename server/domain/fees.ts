import { z } from "zod";
import { CURRENCIES, type Currency } from "./money";

export const FEE_BEARERS = ["merchant", "customer"] as const;
export type FeeBearer = (typeof FEE_BEARERS)[number];

/**
 * A merchant's fee plan: a rate in basis points of the amount plus a fixed part per currency,
 * bounded below by `minimum`. Stored as JSON on the merchant.
 */
export const feePlanSchema = z
  .object({
    rate_bps: z.number().int().min(0).max(10_000),
    fixed: z.partialRecord(z.enum(CURRENCIES), z.number().int().min(0)).default({}),
    minimum: z.partialRecord(z.enum(CURRENCIES), z.number().int().min(0)).default({}),
  })
  .strict();
export type FeePlan = z.infer<typeof feePlanSchema>;

export const STANDARD_FEE_PLAN: FeePlan = { rate_bps: 150, fixed: {}, minimum: { USD: 1, ZWG: 1 } };

export type FeeQuote = {
  amount: number;
  currency: Currency;
  fee: number;
  fee_bearer: FeeBearer;
  charged_amount: number;
};

/**
 * The only fee maths in the service: used by creation and by the preview, so the amount a
 * customer is shown is the amount they are charged. Percentages round half up to the cent
 * (integer arithmetic; no floats touch money).
 */
export function quoteFee(plan: FeePlan, bearer: FeeBearer, amount: number, currency: Currency): FeeQuote {
  const percentage = Math.floor((amount * plan.rate_bps + 5_000) / 10_000);
  const raw = percentage + (plan.fixed[currency] ?? 0);
  const fee = Math.max(raw, plan.minimum[currency] ?? 0);
  const charged_amount = bearer === "customer" ? amount + fee : amount;
  return { amount, currency, fee, fee_bearer: bearer, charged_amount };
}
