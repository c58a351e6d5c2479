import { and, eq, inArray } from "drizzle-orm";
import type { Db } from "@/db/client";
import { checkoutSessions, payments, type CheckoutSession, type Payment } from "@/db/schema";
import { attemptReference, checkoutSessionStatus, inFlight } from "@/server/domain/checkout";
import { resourceMissing, ServiceError } from "@/server/domain/errors";
import { isId } from "@/server/domain/ids";
import type { CustomerContext } from "@/server/context";
import { payThroughOrigin, type CustomerAttempt } from "../payments/pay-through-origin";
import { paymentThrough } from "../payments/payments-through";
import { reconfirmExpiredAttempts } from "../payments/reconfirm-expired-attempts";

/**
 * A customer's attempt on a checkout session (the `/checkout/{id}` page calls this). While the
 * session is open the customer may try again after a decline or an expiry, but never beside an
 * attempt whose outcome is still coming: with the session's row locked, the claim refuses a
 * closed session or one with an attempt in flight, counts the attempt and points the session at
 * it, in the transaction that inserts the payment.
 */
export async function payCheckoutSession(base: CustomerContext, input: CustomerAttempt & { sessionId: string }): Promise<Payment> {
  if (!isId("checkoutSession", input.sessionId)) throw resourceMissing("checkout session", input.sessionId);
  const [session] = await base.db.select().from(checkoutSessions).where(eq(checkoutSessions.id, input.sessionId));
  if (!session) throw resourceMissing("checkout session", input.sessionId);
  // A try again after an expiry: the expired attempt may have been paid as it ran out.
  await reconfirmExpiredAttempts(base, { checkoutSessionId: session.id });

  return payThroughOrigin(
    base,
    session,
    input,
    {
      paymentLinkId: null,
      checkoutSessionId: session.id,
      async claim(tx, payment) {
        const [locked] = await tx.select().from(checkoutSessions).where(eq(checkoutSessions.id, session.id)).for("update");
        const status = checkoutSessionStatus(locked!, payment.now);
        if (status !== "open") {
          throw new ServiceError(
            "checkout_session_closed",
            status === "complete" ? "This checkout has already been paid." : "This checkout has expired. Return to the merchant to start again.",
          );
        }
        if (await paymentThrough(tx, { checkoutSessionId: session.id }, inFlight)) {
          throw new ServiceError("payment_in_progress", "A payment for this checkout is still in progress. Wait for its outcome before trying again.");
        }
        const attempt = await firstFreeAttempt(tx, locked!, locked!.attemptCount + 1);
        await tx
          .update(checkoutSessions)
          .set({ attemptCount: attempt, paymentId: payment.id, updatedAt: payment.now })
          .where(eq(checkoutSessions.id, session.id));
        return { reference: attemptReference(locked!.reference, attempt) };
      },
    },
    "pay-checkout-session",
  );
}

/**
 * The first attempt number from `from` whose reference (`reference#n`) nothing of the merchant's
 * holds. A merchant may have given a payment or a session such a reference itself (`order-7#1`);
 * its attempts step past it rather than fail on it, and the session counts on from there.
 */
async function firstFreeAttempt(tx: Db, session: CheckoutSession, from: number): Promise<number> {
  const scope = (t: typeof payments | typeof checkoutSessions) => and(eq(t.merchantId, session.merchantId), eq(t.livemode, session.livemode));
  for (let start = from; ; start += 10) {
    const candidates = Array.from({ length: 10 }, (_, i) => attemptReference(session.reference, start + i));
    const held = new Set(
      [
        ...(await tx.select({ reference: payments.reference }).from(payments).where(and(inArray(payments.reference, candidates), scope(payments)))),
        ...(await tx
          .select({ reference: checkoutSessions.reference })
          .from(checkoutSessions)
          .where(and(inArray(checkoutSessions.reference, candidates), scope(checkoutSessions)))),
      ].map((r) => r.reference),
    );
    const free = candidates.findIndex((c) => !held.has(c));
    if (free >= 0) return start + free;
  }
}
