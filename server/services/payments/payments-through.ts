import { and, eq, inArray } from "drizzle-orm";
import type { Db } from "@/db/client";
import { payments } from "@/db/schema";
import { PAYMENT_STATUSES, type PaymentStatus } from "@/server/domain/payment-status";

/**
 * One payment made through a link or a session whose status passes `holds`, or undefined. The
 * origin claims ask it with the origin's row locked, so no payment can slip in between the answer
 * and their insert. Served by the partial indexes on payment_link_id and checkout_session_id.
 */
export async function paymentThrough(
  tx: Db,
  origin: { paymentLinkId: string } | { checkoutSessionId: string },
  holds: (status: PaymentStatus) => boolean,
): Promise<{ id: string; status: PaymentStatus } | undefined> {
  const column = "paymentLinkId" in origin ? eq(payments.paymentLinkId, origin.paymentLinkId) : eq(payments.checkoutSessionId, origin.checkoutSessionId);
  const [row] = await tx
    .select({ id: payments.id, status: payments.status })
    .from(payments)
    .where(and(column, inArray(payments.status, PAYMENT_STATUSES.filter(holds))))
    .limit(1);
  return row;
}
