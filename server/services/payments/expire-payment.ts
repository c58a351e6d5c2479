import { eq } from "drizzle-orm";
import { payments, type Payment } from "@/db/schema";
import type { BaseContext } from "@/server/context";
import type { ProviderRegistry } from "@/server/providers/port";
import { applyProviderOutcome } from "./apply-provider-outcome";
import { askProvider } from "./ask-provider";
import { transitionPayment } from "./transition-payment";

/**
 * The expiry timer (spec: "the customer never acted"). Asks the provider first: paid → succeeded,
 * declined → failed, still pending → expired, no answer → unknown (never expired on a guess).
 * Safe to run twice or late: a payment no longer waiting, or not yet due, is left alone.
 */
export async function expirePayment(ctx: BaseContext & { providers: ProviderRegistry }, paymentId: string): Promise<Payment | null> {
  const [payment] = await ctx.db.select().from(payments).where(eq(payments.id, paymentId));
  if (!payment || payment.status !== "awaiting_customer") return payment ?? null;
  if (payment.expiresAt > ctx.clock.now()) return payment;

  const outcome = await askProvider(ctx.providers, payment);
  const definitive = await applyProviderOutcome(ctx, payment, outcome);
  if (definitive) return definitive.payment;
  const to = outcome.kind === "pending" ? "expired" : "unknown";
  return (await transitionPayment(ctx, { paymentId, to })).payment;
}
