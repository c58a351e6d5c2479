import type { Db } from "@/db/client";
import { inTransaction } from "@/db/transaction";
import { placeholders, preparedOnce } from "@/db/prepared-once";
import { providerCallbacks, type CallbackOutcome, type Payment } from "@/db/schema";
import { newId } from "@/server/domain/ids";
import type { BaseContext } from "@/server/context";
import { log } from "@/server/log";
import type { ParsedCallback, ProviderRegistry } from "@/server/providers/port";
import { canTransition } from "@/server/domain/payment-status";
import { findUnstorable } from "@/server/domain/unstorable";
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
  // PostgreSQL text cannot hold a NUL (nor half a surrogate pair): such a callback could never be
  // recorded, and a 500 would have the provider send it again forever.
  if (findUnstorable(parsed) || findUnstorable(input.rawBody)) return { status: 400, reason: "unreadable callback" };

  // The move's signals to the workers go once this commits (inTransaction), not before its rows exist.
  return inTransaction(ctx.db, async (tx) => {
    const payment = await lockPayment(tx, parsed.paymentId);
    const { outcome, reason } = judgeCallback(payment, parsed, provider.name);
    if (outcome === "ignored" || outcome === "quarantined") {
      log.warn("provider callback not applied", { provider: provider.name, payment: parsed.paymentId, outcome, reason });
    }
    // The row is locked, so the verdict is what the compare-and-set will do: the record of the
    // callback goes to the database with the move (one round trip), not after it.
    const [moved] = await Promise.all([
      outcome === "applied" ? applyProviderOutcome({ db: tx, clock: ctx.clock }, payment!, parsed.outcome, parsed.providerReference, { locked: true }) : null,
      insertCallback(tx).execute({
        id: newId("providerCallback", now),
        provider: provider.name,
        providerEventId: parsed.providerEventId,
        paymentId: payment?.id ?? null,
        reportedStatus: parsed.reportedStatus,
        reportedAmount: storableAmount(parsed.amount),
        outcome,
        reason,
        payload: input.rawBody,
        createdAt: now,
      } satisfies Required<Pick<NewCallback, (typeof CALLBACK_COLUMNS)[number]>>),
    ]);
    if (outcome === "applied" && !moved?.changed) throw new Error(`payment ${parsed.paymentId} was locked in a state it may leave, and did not move`);
    return { status: 200 as const, outcome, ...(reason ? { reason } : {}) };
  });
}

/** The column is a 32-bit integer: an amount past it (never a payment's, so quarantined) is kept in the payload alone. */
const INT4_MAX = 2_147_483_647;
const storableAmount = (amount: number): number | null => (Math.abs(amount) <= INT4_MAX ? amount : null);

/**
 * What a verified callback does to the payment it names, read under the payment's lock: applied
 * (it moves the payment), duplicate (the payment is already where it says), ignored (unknown
 * payment, another provider's, no definitive outcome, stale news after a terminal state) or
 * quarantined (an amount that is not the payment's).
 */
function judgeCallback(payment: Payment | undefined, parsed: ParsedCallback, providerName: string): { outcome: CallbackOutcome; reason: string | null } {
  const ignored = (reason: string) => ({ outcome: "ignored" as const, reason });
  if (!payment || payment.provider !== providerName) return ignored("no such payment for this provider");
  if (payment.providerReference && payment.providerReference !== parsed.providerReference) {
    return ignored(`provider reference ${parsed.providerReference} is not the payment's`);
  }
  if (parsed.amount !== payment.chargedAmount || parsed.currency !== payment.currency) {
    return { outcome: "quarantined", reason: `reported ${parsed.currency} ${parsed.amount}, payment charges ${payment.currency} ${payment.chargedAmount}` };
  }
  const kind = parsed.outcome.kind;
  if (kind === "pending" || kind === "unknown") return ignored(`no definitive outcome (${parsed.reportedStatus})`);
  if (canTransition(payment.status, kind)) return { outcome: "applied", reason: null };
  if (payment.status === kind) return { outcome: "duplicate", reason: null };
  // Out of order or contradicting a terminal state: the payment's current state stands.
  return ignored(`payment already ${payment.status}`);
}
