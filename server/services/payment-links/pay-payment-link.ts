import { eq } from "drizzle-orm";
import { paymentLinks, type Payment } from "@/db/schema";
import { resourceMissing, ServiceError } from "@/server/domain/errors";
import { isId } from "@/server/domain/ids";
import { holdsSingleUseLink, linkClosedReason, linkPaymentReference } from "@/server/domain/payment-links";
import type { CustomerContext } from "@/server/context";
import { payThroughOrigin, type CustomerAttempt } from "../payments/pay-through-origin";
import { paymentThrough } from "../payments/payments-through";
import { reconfirmExpiredAttempts } from "../payments/reconfirm-expired-attempts";

/**
 * A customer pays a link (the `/pay/{id}` page calls this). The claim runs with the link's row
 * locked, so two customers on one single-use link at once make one payment.
 */
export async function payPaymentLink(base: CustomerContext, input: CustomerAttempt & { linkId: string }): Promise<Payment> {
  if (!isId("paymentLink", input.linkId)) throw resourceMissing("payment link", input.linkId);
  const [link] = await base.db.select().from(paymentLinks).where(eq(paymentLinks.id, input.linkId));
  if (!link) throw resourceMissing("payment link", input.linkId);
  // A single-use link tried again after an expiry: the expired attempt may have been paid as it ran out.
  if (link.singleUse) await reconfirmExpiredAttempts(base, { paymentLinkId: link.id });

  return payThroughOrigin(
    base,
    link,
    input,
    {
      paymentLinkId: link.id,
      checkoutSessionId: null,
      async claim(tx, payment) {
        const [locked] = await tx.select().from(paymentLinks).where(eq(paymentLinks.id, link.id)).for("update");
        const closed = linkClosedReason(locked!, payment.now);
        if (closed) throw new ServiceError("link_expired", closed);
        if (locked!.singleUse && (await paymentThrough(tx, { paymentLinkId: link.id }, holdsSingleUseLink))) {
          throw new ServiceError("link_used", "This payment link has already been used. Ask the merchant for a new one.");
        }
        return { reference: linkPaymentReference(link.id, payment.id) };
      },
    },
    "pay-payment-link",
  );
}
