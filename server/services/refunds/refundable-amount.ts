import { and, eq, inArray, sql } from "drizzle-orm";
import type { Db } from "@/db/client";
import { refunds, type Payment } from "@/db/schema";
import { HOLDING_STATUSES, refundableRemainder } from "@/server/domain/refunds";

/**
 * What a refund of `payment` may still take: its amount less all its pending and succeeded
 * refunds, summed by the database however many there are. A refund's insert asks it in the
 * transaction that locks the payment row (create-refund.ts), and the payment's page asks the same,
 * so the page never offers more than a refund would be allowed to take, nor less.
 */
export async function refundableAmount(db: Db, payment: Pick<Payment, "id" | "amount">): Promise<number> {
  const [held] = await db
    .select({ amount: sql<number>`coalesce(sum(${refunds.amount}), 0)`.mapWith(Number) })
    .from(refunds)
    .where(and(eq(refunds.paymentId, payment.id), inArray(refunds.status, HOLDING_STATUSES)));
  return refundableRemainder(payment.amount, held?.amount ?? 0);
}
