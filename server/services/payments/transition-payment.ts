import { and, asc, eq, inArray } from "drizzle-orm";
import type { Db } from "@/db/client";
import { placeholder, placeholders, preparedPerShape } from "@/db/prepared-once";
import { afterCommit, inTransaction } from "@/db/transaction";
import { checkoutSessions, payments, type EventRow, type Payment } from "@/db/schema";
import { checkoutSessionStatus } from "@/server/domain/checkout";
import { PAYMENT_EVENT } from "@/server/domain/events";
import { TRANSITIONS, type FailureCode, type PaymentStatus } from "@/server/domain/payment-status";
import { resourceMissing } from "@/server/domain/errors";
import type { BaseContext } from "@/server/context";
import { toCheckoutSessionResource } from "@/server/schemas/checkout-sessions";
import { toPaymentResource } from "@/server/schemas/payments";
import { lockPayment } from "./prepared";
import { signalJobs } from "@/server/services/job-signals";
import { recordEvents, type NewEvent } from "../events/record-event";
import { firstCheckAt } from "@/server/domain/reconcile-schedule";

export type TransitionInput = {
  paymentId: string;
  to: Exclude<PaymentStatus, "awaiting_customer">;
  /** Required with `failed`: only a provider's definitive decline (or staff) fails a payment. */
  failure?: { code: FailureCode; message: string };
  providerReference?: string | null;
  /** Staff's reason when resolving an unresolved payment by hand. */
  resolutionReason?: string;
  /** And who they are (usr_…). */
  resolvedBy?: string;
  /** Set when the push itself produced the outcome. */
  promptSentAt?: Date;
  /**
   * The payment as the caller read it with lockPayment() in the transaction that is `ctx.db`: the
   * row is locked already, so the move does not lock and read it again.
   */
  locked?: Payment;
};

export type TransitionResult = { payment: Payment; changed: boolean; event: EventRow | null };

/** The timestamp column each state stamps on arrival. */
const STAMP = {
  unknown: "unknownSince",
  succeeded: "succeededAt",
  failed: "failedAt",
  expired: "expiredAt",
  unresolved: "unresolvedAt",
} as const satisfies Record<TransitionInput["to"], keyof Payment>;

/**
 * The one way a payment changes state: a compare-and-set on the allowed `from` states, its event
 * and outbox row, all in one transaction (the caller's, when `ctx.db` is one). Losing the race
 * (someone else moved it first, or it is terminal) is a normal outcome: `changed: false` with the
 * current row, and no event.
 *
 * The row lock and the compare-and-set go to the database together (pipelined: one round trip).
 * The UPDATE runs after the SELECT … FOR UPDATE has taken the lock, so the row it changes is the
 * one the SELECT read: it changes a row exactly when that row's status was one of `from`.
 */
export async function transitionPayment(ctx: BaseContext, input: TransitionInput): Promise<TransitionResult> {
  if (input.to === "failed" && !input.failure) throw new Error("a payment fails only with the provider's decline reason");
  let alsoRecorded: EventRow[] = [];
  if (input.locked && input.locked.id !== input.paymentId) throw new Error("the locked row is another payment's");
  const result = await inTransaction(ctx.db, async (tx): Promise<TransitionResult> => {
    const now = ctx.clock.now();
    const [current, [updated]] = await Promise.all([input.locked ?? lockPayment(tx, input.paymentId), move(tx, input, changes(input, now))]);
    if (!current) throw resourceMissing("payment", input.paymentId);
    if (!updated) return { payment: current, changed: false, event: null };
    const [event, ...others] = await recordEvents(tx, [
      ...eventsFor([updated], new Map([[updated.id, current.status]]), now),
      ...(await completeCheckoutSession(tx, updated, now)),
    ]);
    alsoRecorded = others;
    return { payment: updated, changed: true, event: event ?? null };
  });
  afterCommit(ctx.db, () => {
    signalMoves([result]);
    if (alsoRecorded.length) signalJobs({ type: "events.recorded", eventIds: alsoRecorded.map((e) => e.id) });
  });
  return result;
}

/**
 * The same move for many payments at once (the expiry runner's batches): rows locked in id order,
 * one compare-and-set UPDATE (pipelined with the locking SELECT), the events and outbox rows in
 * two multi-row statements, all in one transaction. Only moves that need no per-payment detail
 * (no failure reason, no reference) batch.
 * Returns the payments that moved; the others had already moved on.
 */
export async function transitionPayments(
  ctx: BaseContext,
  paymentIds: string[],
  to: Extract<TransitionInput["to"], "expired" | "unknown">,
): Promise<TransitionResult[]> {
  if (paymentIds.length === 0) return [];
  const from = TRANSITIONS[to] as readonly PaymentStatus[];
  const results = await inTransaction(ctx.db, async (tx): Promise<TransitionResult[]> => {
    const now = ctx.clock.now();
    const [current, updated] = await Promise.all([
      tx.select({ id: payments.id, status: payments.status }).from(payments).where(inArray(payments.id, paymentIds)).orderBy(asc(payments.id)).for("update"),
      tx
        .update(payments)
        .set(changes({ paymentId: "", to }, now))
        .where(and(inArray(payments.id, paymentIds), inArray(payments.status, from)))
        .returning(),
    ]);
    const recorded = await recordEvents(tx, eventsFor(updated, new Map(current.map((c) => [c.id, c.status])), now));
    const byPayment = new Map(recorded.map((e) => [e.objectId, e]));
    return updated.map((payment) => ({ payment, changed: true, event: byPayment.get(payment.id) ?? null }));
  });
  afterCommit(ctx.db, () => signalMoves(results));
  return results;
}

/**
 * A succeeded attempt completes its checkout session, in the transaction that moved the payment:
 * a compare-and-set on `open`, so however many callbacks arrive and in whatever order, the session
 * completes once and `checkout_session.completed` is recorded once. An open session completes even
 * past its `expires_at`: the attempt was made while it was open, and the money moved.
 */
async function completeCheckoutSession(tx: Db, payment: Payment, now: Date): Promise<NewEvent[]> {
  if (payment.status !== "succeeded" || !payment.checkoutSessionId) return [];
  const [session] = await tx
    .update(checkoutSessions)
    .set({ status: "complete", paymentId: payment.id, completedAt: now, updatedAt: now })
    .where(and(eq(checkoutSessions.id, payment.checkoutSessionId), eq(checkoutSessions.status, "open")))
    .returning();
  if (!session) return [];
  return [
    {
      merchantId: session.merchantId,
      livemode: session.livemode,
      type: "checkout_session.completed",
      objectId: session.id,
      object: toCheckoutSessionResource(session, now),
      previousAttributes: { status: checkoutSessionStatus({ status: "open", expiresAt: session.expiresAt }, now) },
      at: now,
    },
  ];
}

type Changes = ReturnType<typeof changes>;
/** The compare-and-set: the columns in `set`, where the payment is still in a state that may move to `to`; the moved row, or none. */
function move(tx: Db, input: TransitionInput, set: Changes): Promise<Payment[]> {
  return moveStatement(tx, input.to, set).execute({ ...set, paymentId: input.paymentId }) as Promise<Payment[]>;
}

/** One prepared compare-and-set per target state and columns set (and set to null). */
const moveStatement = preparedPerShape(
  (to: TransitionInput["to"], set: Changes) =>
    `${to}:${Object.entries(set)
      .map(([c, v]) => (v === null ? `${c}=null` : c))
      .join(",")}`,
  (db, to, set) =>
    db
      .update(payments)
      .set(placeholders(Object.keys(set) as (keyof Changes)[], set))
      .where(and(eq(payments.id, placeholder<string>("paymentId")), inArray(payments.status, [...(TRANSITIONS[to] as readonly PaymentStatus[])])))
      .returning()
      .prepare(`payments_move_${to}`),
);

function changes(input: TransitionInput, now: Date) {
  return {
    status: input.to,
    [STAMP[input.to]]: now,
    updatedAt: now,
    ...(input.failure ? { failureCode: input.failure.code, failureMessage: input.failure.message } : {}),
    ...(input.providerReference ? { providerReference: input.providerReference } : {}),
    ...(input.resolutionReason ? { resolutionReason: input.resolutionReason } : {}),
    ...(input.resolvedBy ? { resolvedBy: input.resolvedBy } : {}),
    ...(input.promptSentAt ? { promptSentAt: input.promptSentAt } : {}),
    // Unknown and unresolved payments keep being reconciled; every other state is done asking.
    nextCheckAt: input.to === "unknown" || input.to === "unresolved" ? firstCheckAt(input.to, now) : null,
    ...(input.to === "unknown" ? { checkAttempts: 0 } : {}),
  };
}

/** The event each moved payment fires (none for `unknown`), showing the payment as it now is. */
function eventsFor(moved: Payment[], previous: Map<string, PaymentStatus>, now: Date): NewEvent[] {
  return moved.flatMap((p) => {
    const type = PAYMENT_EVENT[p.status];
    if (!type) return [];
    return [
      {
        merchantId: p.merchantId,
        livemode: p.livemode,
        type,
        objectId: p.id,
        object: toPaymentResource(p),
        previousAttributes: { status: previous.get(p.id)! },
        at: now,
      },
    ];
  });
}

function signalMoves(results: TransitionResult[]): void {
  const eventIds = results.flatMap((r) => (r.event ? [r.event.id] : []));
  if (eventIds.length) signalJobs({ type: "events.recorded", eventIds });
  for (const r of results) {
    if (r.changed && r.payment.status === "unknown") {
      signalJobs({ type: "payment.unknown", paymentId: r.payment.id, unknownSince: r.payment.unknownSince! });
    }
  }
}
