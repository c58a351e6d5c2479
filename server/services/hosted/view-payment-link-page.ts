import { eq } from "drizzle-orm";
import { merchants, paymentLinks, payments } from "@/db/schema";
import { quoteFee } from "@/server/domain/fees";
import { isId } from "@/server/domain/ids";
import { formatHarareTime } from "@/server/domain/hosted";
import { holdsSingleUseLink, linkClosedReason } from "@/server/domain/payment-links";
import type { BaseContext } from "@/server/context";
import { pageQuote, toHostedAttempt, type HostedPage } from "@/server/schemas/hosted";
import { paymentOfAttempt } from "../payments/pay-through-origin";
import { paymentThrough } from "../payments/payments-through";

const USED =
  "This payment link has already been used. If you paid through it, check your wallet's messages before paying again; otherwise ask the merchant for a new one.";

/**
 * `/pay/{id}` as the customer sees it, or null for no such link. `paymentId` is the attempt in the
 * page's URL after paying: shown only when it was made through this link. `attemptKey` finds an
 * attempt whose answer never reached the page (the connection dropped as Pay was tapped): the key
 * the page sent it with, which only that page holds. A closed or used link still shows that
 * customer's attempt, since its outcome is what they came back for.
 */
export async function viewPaymentLinkPage(
  base: BaseContext,
  input: { linkId: string; paymentId?: string; attemptKey?: string },
): Promise<HostedPage | null> {
  if (!isId("paymentLink", input.linkId)) return null;
  const now = base.clock.now();
  const [row] = await base.db
    .select({ link: paymentLinks, merchant: { name: merchants.name, feePlan: merchants.feePlan, feeBearer: merchants.feeBearer } })
    .from(paymentLinks)
    .innerJoin(merchants, eq(merchants.id, paymentLinks.merchantId))
    .where(eq(paymentLinks.id, input.linkId));
  if (!row) return null;
  const { link, merchant } = row;

  const [attempt] =
    input.paymentId && isId("payment", input.paymentId)
      ? await base.db.select().from(payments).where(eq(payments.id, input.paymentId))
      : input.attemptKey
        ? [await paymentOfAttempt(base.db, link, input.attemptKey)]
        : [];
  const mine = attempt?.paymentLinkId === link.id ? attempt : undefined;

  const closed = linkClosedReason(link, now, (at) => formatHarareTime(at.toISOString()));
  const used = !closed && !mine && link.singleUse && (await paymentThrough(base.db, { paymentLinkId: link.id }, holdsSingleUseLink)) !== undefined;
  const state = closed ? "link_expired" : used ? "link_used" : "open";

  return {
    kind: "payment_link",
    id: link.id,
    livemode: link.livemode,
    merchant_name: merchant.name,
    description: link.description,
    quote: pageQuote(quoteFee(merchant.feePlan, merchant.feeBearer, link.amount, link.currency), mine, state),
    state,
    notice: closed ?? (used ? USED : null),
    attempt: mine ? toHostedAttempt(mine) : null,
    success_url: null,
    cancel_url: null,
    status_path: `/pay/${link.id}/status${mine ? `?payment=${mine.id}` : ""}`,
    server_time: now.toISOString(),
  };
}
