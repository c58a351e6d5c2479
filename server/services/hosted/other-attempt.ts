import type { Db } from "@/db/client";
import type { Payment } from "@/db/schema";
import { inFlight } from "@/server/domain/checkout";
import type { OtherAttempt } from "@/server/schemas/hosted";
import { paymentThrough } from "../payments/payments-through";

/**
 * For one order (a checkout session, a single-use link), whether another attempt puts the customer
 * at risk of paying twice: this attempt is paid while another's prompt may still be on a phone, or
 * this one's prompt is out while another has been paid. Both happen only when an expired attempt
 * is confirmed late just as a new one was made (reconfirmExpiredAttempts narrows that to seconds).
 * One read on the origin's partial index, and only for an attempt that is paid or under way.
 * `paidBy`: the payment that paid the order, when the caller has it already (a complete session
 * names it), which spares the read the status polls of an attempt under way would each make.
 */
export async function otherAttemptOfOrder(
  db: Db,
  origin: { paymentLinkId: string } | { checkoutSessionId: string },
  attempt: Pick<Payment, "id" | "status"> | undefined,
  paidBy?: string | null,
): Promise<OtherAttempt> {
  if (!attempt) return null;
  if (attempt.status === "succeeded") return (await paymentThrough(db, origin, inFlight)) ? "in_flight" : null;
  if (!inFlight(attempt.status)) return null;
  const paid = paidBy !== undefined ? paidBy !== null && paidBy !== attempt.id : (await paymentThrough(db, origin, (s) => s === "succeeded")) !== undefined;
  return paid ? "paid" : null;
}
