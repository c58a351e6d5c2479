import { eq } from "drizzle-orm";
import { checkoutSessions, type Payment } from "@/db/schema";
import { attemptReference, checkoutSessionStatus, inFlight } from "@/server/domain/checkout";
import { resourceMissing, ServiceError } from "@/server/domain/errors";
import { isId } from "@/server/domain/ids";
import type { BaseContext } from "@/server/context";
import type { ProviderRegistry } from "@/server/providers/port";
import { payThroughOrigin, type CustomerAttempt } from "../payments/pay-through-origin";
import { paymentThrough } from "../payments/payments-through";

/**
 * A customer's attempt on a checkout session (the `/checkout/{id}` page calls this). While the
 * session is open the customer may try again after a decline or an expiry, but never beside an
 * attempt whose outcome is still coming: with the session's row locked, the claim refuses a
 * closed session or one with an attempt in flight, counts the attempt and points the session at
 * it, in the transaction that inserts the payment.
 */
export async function payCheckoutSession(base: BaseContext & { providers: ProviderRegistry }, input: CustomerAttempt & { sessionId: string }): Promise<Payment> {
  if (!isId("checkoutSession", input.sessionId)) throw resourceMissing("checkout session", input.sessionId);
  const [session] = await base.db.select().from(checkoutSessions).where(eq(checkoutSessions.id, input.sessionId));
  if (!session) throw resourceMissing("checkout session", input.sessionId);

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
        const attempt = locked!.attemptCount + 1;
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
