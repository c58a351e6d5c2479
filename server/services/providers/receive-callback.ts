import type { Db } from "@/db/client";
import { placeholders, preparedOnce } from "@/db/prepared-once";
import { providerCallbacks, type CallbackOutcome } from "@/db/schema";
import { newId } from "@/server/domain/ids";
import type { BaseContext } from "@/server/context";
import { log } from "@/server/log";
import type { ProviderRegistry } from "@/server/providers/port";
import { applyProviderOutcome } from "../payments/apply-provider-outcome";
import { lockPayment } from "../payments/prepared";

type NewCallback = typeof providerCallbacks.$inferInsert;
const CALLBACK_COLUMNS = ["id", "provider", "providerEventId", "paymentId", "reportedStatus", "reportedAmount", "outcome", "reason", "payload", "createdAt"] as const;
const insertCallback = preparedOnce((db: Db) =>
  db
    .insert(providerCallbacks)
    .values(placeholders(CALLBACK_COLUMNS))
    .prepare("provider_callbacks_insert"),
);

export type CallbackReceipt = { status: 200 | 400 | 401 | 404; outcome?: CallbackOutcome; reason?: string };

/**
 * A provider's notification about a payment. Forged or unsigned → 401 and nothing else. Once
 * verified, it is recorded with what we did: applied (it moved the payment), duplicate (already
 * there), ignored (unknown payment, another provider's, stale news after a terminal state), or
 * quarantined (an amount that is not the payment's, kept for staff and never applied).
 * Anything verified answers 200 so the provider stops retrying.
 */
export async function receiveProviderCallback(
  ctx: BaseContext & { providers: ProviderRegistry },
  input: { providerName: string; headers: Headers; rawBody: string },
): Promise<CallbackReceipt> {
  const provider = ctx.providers.byName(input.providerName);
  if (!provider) return { status: 404, reason: "no such provider" };
  const now = ctx.clock.now();
  if (!provider.verifyCallback(input.headers, input.rawBody, now)) {
    log.warn("provider callback refused: bad or missing signature", { provider: input.providerName });
    return { status: 401, reason: "signature" };
  }
  const parsed = provider.parseCallback(input.rawBody);
  if (!parsed) return { status: 400, reason: "unreadable callback" };

  return ctx.db.transaction(async (tx) => {
    const base = { db: tx, clock: ctx.clock };
    const payment = await lockPayment(tx, parsed.paymentId);
    let outcome: CallbackOutcome;
    let reason: string | null = null;
    if (!payment || payment.provider !== provider.name) {
      outcome = "ignored";
      reason = "no such payment for this provider";
    } else if (payment.providerReference && payment.providerReference !== parsed.providerReference) {
      outcome = "ignored";
      reason = `provider reference ${parsed.providerReference} is not the payment's`;
    } else if (parsed.amount !== payment.chargedAmount || parsed.currency !== payment.currency) {
      outcome = "quarantined";
      reason = `reported ${parsed.currency} ${parsed.amount}, payment charges ${payment.currency} ${payment.chargedAmount}`;
    } else {
      const result = await applyProviderOutcome(base, payment, parsed.outcome, parsed.providerReference, { locked: true });
      if (!result) {
        outcome = "ignored";
        reason = `no definitive outcome (${parsed.reportedStatus})`;
      } else if (result.changed) {
        outcome = "applied";
      } else if (result.payment.status === parsed.outcome.kind) {
        outcome = "duplicate";
      } else {
        // Out of order or contradicting a terminal state: the payment's current state stands.
        outcome = "ignored";
        reason = `payment already ${result.payment.status}`;
      }
    }
    if (outcome === "ignored" || outcome === "quarantined") {
      log.warn("provider callback not applied", { provider: provider.name, payment: parsed.paymentId, outcome, reason });
    }
    await insertCallback(tx).execute({
      id: newId("providerCallback", now),
      provider: provider.name,
      providerEventId: parsed.providerEventId,
      paymentId: payment?.id ?? null,
      reportedStatus: parsed.reportedStatus,
      reportedAmount: parsed.amount,
      outcome,
      reason,
      payload: input.rawBody,
      createdAt: now,
    } satisfies Required<Pick<NewCallback, (typeof CALLBACK_COLUMNS)[number]>>);
    return { status: 200 as const, outcome, ...(reason ? { reason } : {}) };
  });
}
