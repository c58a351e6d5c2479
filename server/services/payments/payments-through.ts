import { and, eq, inArray } from "drizzle-orm";
import type { Db } from "@/db/client";
import { payments } from "@/db/schema";
import { holdsSingleUseLink } from "@/server/domain/payment-links";
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

/**
 * For each single-use link of a page, the status of the payment holding it (holdsSingleUseLink),
 * if one does: one statement for the page, on the partial index on payment_link_id. A succeeded
 * payment outranks one still in progress.
 */
export async function singleUseLinkHolders(db: Db, links: readonly { id: string; singleUse: boolean }[]): Promise<Map<string, PaymentStatus>> {
  const ids = links.filter((l) => l.singleUse).map((l) => l.id);
  const holders = new Map<string, PaymentStatus>();
  if (ids.length === 0) return holders;
  const rows = await db
    .select({ linkId: payments.paymentLinkId, status: payments.status })
    .from(payments)
    .where(and(inArray(payments.paymentLinkId, ids), inArray(payments.status, PAYMENT_STATUSES.filter(holdsSingleUseLink))));
  for (const r of rows) if (r.linkId && holders.get(r.linkId) !== "succeeded") holders.set(r.linkId, r.status);
  return holders;
}
