import { inArray } from "drizzle-orm";
import { payments, type Payment } from "@/db/schema";
import type { BaseContext } from "@/server/context";
import type { ProviderRegistry } from "@/server/providers/port";
import { applyProviderOutcome } from "./apply-provider-outcome";
import { askProvider } from "./ask-provider";
import { transitionPayments } from "./transition-payment";

type Ctx = BaseContext & { providers: ProviderRegistry };

/**
 * The expiry timer (spec: "the customer never acted"). Asks the provider first: paid → succeeded,
 * declined → failed, still pending → expired, no answer → unknown (never expired on a guess).
 * Safe to run twice or late: a payment no longer waiting, or not yet due, is left alone.
 */
export async function expirePayment(ctx: Ctx, paymentId: string): Promise<Payment | null> {
  return (await expirePayments(ctx, [paymentId])).get(paymentId) ?? null;
}

/** The same for a batch of ids: one read, then expireClaimed. */
export async function expirePayments(ctx: Ctx, paymentIds: string[]): Promise<Map<string, Payment>> {
  return expireClaimed(ctx, paymentIds.length ? await ctx.db.select().from(payments).where(inArray(payments.id, paymentIds)) : []);
}

/**
 * The same for payments already read (the rows a claim of due expiries returned): the provider
 * asked about each at once, then the expired and the unknown each moved by one batched transition.
 * Rows no longer waiting or not yet due are left alone. Returns each payment as it now stands.
 *
 * A payment whose question or move throws (a fault of ours: a provider that cannot answer makes it
 * `unknown` instead) holds up none of the others: they move, and then the failures are thrown
 * together, leaving those payments waiting to be tried again (a claim's lease runs out).
 */
export async function expireClaimed(ctx: Ctx, rows: Payment[]): Promise<Map<string, Payment>> {
  const now = ctx.clock.now();
  const state = new Map(rows.map((p) => [p.id, p]));
  const due = rows.filter((p) => p.status === "awaiting_customer" && p.expiresAt <= now);
  const failed: { paymentId: string; error: unknown }[] = [];

  const answers = await Promise.all(
    due.map(async (payment) => {
      try {
        return { payment, outcome: await askProvider(ctx.providers, payment) };
      } catch (error) {
        failed.push({ paymentId: payment.id, error });
        return null;
      }
    }),
  );
  const toExpire: string[] = [];
  const toUnknown: string[] = [];
  for (const answer of answers) {
    if (!answer) continue;
    const { payment, outcome } = answer;
    if (outcome.kind === "pending" || outcome.kind === "unknown") {
      (outcome.kind === "pending" ? toExpire : toUnknown).push(payment.id);
      continue;
    }
    try {
      const definitive = await applyProviderOutcome(ctx, payment, outcome);
      if (definitive) state.set(payment.id, definitive.payment);
    } catch (error) {
      failed.push({ paymentId: payment.id, error });
    }
  }
  for (const [ids, to] of [[toExpire, "expired"], [toUnknown, "unknown"]] as const) {
    const moved = await transitionPayments(ctx, ids, to);
    for (const r of moved) state.set(r.payment.id, r.payment);
    // Those that did not move had moved on meanwhile (a callback won the race): read them again.
    const stale = ids.filter((id) => !moved.some((r) => r.payment.id === id));
    if (stale.length) for (const p of await ctx.db.select().from(payments).where(inArray(payments.id, stale))) state.set(p.id, p);
  }
  if (failed.length) {
    throw new AggregateError(
      failed.map((f) => f.error),
      `expiry failed for ${failed.map((f) => f.paymentId).join(", ")} (${failed.length} of ${due.length}); the others moved`,
    );
  }
  return state;
}
