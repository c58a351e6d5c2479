import { and, eq } from "drizzle-orm";
import { payments, type Payment } from "@/db/schema";
import { nextCheckAt, UNRESOLVED_AFTER_MS } from "@/server/domain/reconcile-schedule";
import type { BaseContext } from "@/server/context";
import type { ProviderRegistry } from "@/server/providers/port";
import { applyProviderOutcome } from "./apply-provider-outcome";
import { askProvider } from "./ask-provider";
import { transitionPayment } from "./transition-payment";

type Ctx = BaseContext & { providers: ProviderRegistry };

/**
 * Reconciliation of a payment whose outcome is not known: ask the provider (with backoff between
 * calls), apply a definitive answer, expire one the customer never acted on, and after 24 h in
 * `unknown` flag it `unresolved` for a human, while going on asking, more slowly.
 */
export async function reconcilePayment(ctx: Ctx, paymentId: string): Promise<Payment | null> {
  const [payment] = await ctx.db.select().from(payments).where(eq(payments.id, paymentId));
  return payment ? reconcileClaimed(ctx, payment) : null;
}

/**
 * The same for a payment already read (a row a claim of due checks returned). A payment that
 * moved on meanwhile is changed by none of the steps: each is a compare-and-set on its status.
 */
export async function reconcileClaimed(ctx: Ctx, payment: Payment): Promise<Payment> {
  if (payment.status !== "unknown" && payment.status !== "unresolved") return payment;
  const paymentId = payment.id;

  const outcome = await askProvider(ctx.providers, payment);
  const definitive = await applyProviderOutcome(ctx, payment, outcome);
  if (definitive?.changed) return definitive.payment;

  const now = ctx.clock.now();
  // Pending after the prompt's expiry means the customer never acted: the provider has nothing.
  if (outcome.kind === "pending" && payment.status === "unknown" && payment.expiresAt <= now) {
    return (await transitionPayment(ctx, { paymentId, to: "expired" })).payment;
  }
  if (payment.status === "unknown" && payment.unknownSince && now.getTime() - payment.unknownSince.getTime() >= UNRESOLVED_AFTER_MS) {
    return (await markUnresolved(ctx, paymentId)) ?? payment;
  }
  // The schedule of the status read: a payment flagged unresolved meanwhile (the 24 h timer beside
  // this check) keeps the one its flag gave it.
  const attempts = payment.checkAttempts + 1;
  const [updated] = await ctx.db
    .update(payments)
    .set({ checkAttempts: attempts, nextCheckAt: nextCheckAt(payment.status, attempts, now, payment.unknownSince) })
    .where(and(eq(payments.id, paymentId), eq(payments.status, payment.status)))
    .returning();
  if (updated) return updated;
  const [current] = await ctx.db.select().from(payments).where(eq(payments.id, paymentId));
  return current ?? payment;
}

/** 24 h in `unknown` → `unresolved` with `payment.unresolved`. A no-op before that, or if it moved on. */
export async function markUnresolved(ctx: BaseContext, paymentId: string): Promise<Payment | null> {
  const [payment] = await ctx.db.select().from(payments).where(eq(payments.id, paymentId));
  if (!payment || payment.status !== "unknown" || !payment.unknownSince) return payment ?? null;
  if (ctx.clock.now().getTime() - payment.unknownSince.getTime() < UNRESOLVED_AFTER_MS) return payment;
  return (await transitionPayment(ctx, { paymentId, to: "unresolved" })).payment;
}
