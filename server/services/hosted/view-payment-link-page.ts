import { eq } from "drizzle-orm";
import { merchants, paymentLinks, payments, type Payment, type PaymentLink } from "@/db/schema";
import { quoteFee } from "@/server/domain/fees";
import { isId } from "@/server/domain/ids";
import { ATTEMPT_PHASE, formatHarareTime, PHASE_IS_FINAL } from "@/server/domain/hosted";
import { holdsSingleUseLink, linkClosedReason } from "@/server/domain/payment-links";
import type { BaseContext } from "@/server/context";
import { pageQuote, toHostedAttempt, type HostedPage } from "@/server/schemas/hosted";
import { paymentThrough } from "../payments/payments-through";
import { otherAttemptOfOrder } from "./other-attempt";
import { madeByAttempt, newestPaymentOfAttempts } from "../payments/pay-through-origin";

const USED =
  "This payment link has already been used. If you paid through it, check your wallet's messages before paying again; otherwise ask the merchant for a new one.";
const IN_USE =
  "Someone is paying through this link now, and it takes one payment. If that payment does not go through, the link takes payments again, and this page then shows its form. Or ask the merchant for a new link.";
/** To the customer whose own attempt failed or expired, on a single-use link paid (or being paid) since. */
const USED_SINCE = "This payment link has been used since, and it takes one payment. If you still need to pay, ask the merchant for a new link.";

/**
 * `/pay/{id}` as the customer sees it, or null for no such link. `paymentId` is the attempt in the
 * page's URL after paying: shown only when it was made through this link, and, once finished,
 * only to the browser that made it (`ownAttemptKeys`, see showsAttempt). `attemptKeys` find an
 * attempt whose answer never reached the page (the connection dropped as Pay was tapped): the
 * keys the browser sent its attempts with, which only that browser holds; the newest payment one
 * of them made is shown. A closed or used link still shows that
 * customer's attempt, since its outcome is what they came back for; and a failed or expired one on
 * a single-use link someone else has paid since is shown with the link used, not with a form that
 * would be refused.
 */
export async function viewPaymentLinkPage(
  base: BaseContext,
  input: { linkId: string; paymentId?: string; attemptKeys?: readonly string[]; ownAttemptKeys?: readonly string[] },
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

  const byKey = !input.paymentId && input.attemptKeys?.length ? await newestPaymentOfAttempts(base.db, link, input.attemptKeys) : undefined;
  const [attempt] =
    input.paymentId && isId("payment", input.paymentId)
      ? await base.db.select().from(payments).where(eq(payments.id, input.paymentId))
      : byKey
        ? [byKey.payment]
        : [];
  const through = attempt?.paymentLinkId === link.id ? attempt : undefined;
  const mine = through && (byKey !== undefined || showsAttempt(link, through, input.ownAttemptKeys ?? [])) ? through : undefined;

  const closed = linkClosedReason(link, now, (at) => formatHarareTime(at.toISOString()));
  // Held by this customer's own attempt, the link is theirs; otherwise whoever holds it has used it.
  const holder =
    !closed && link.singleUse && !(mine && holdsSingleUseLink(mine.status)) ? await paymentThrough(base.db, { paymentLinkId: link.id }, holdsSingleUseLink) : undefined;
  const used = holder !== undefined;
  const inUse = used && holder.status !== "succeeded";
  const state = closed ? "link_expired" : used ? "link_used" : "open";

  return {
    kind: "payment_link",
    id: link.id,
    livemode: link.livemode,
    merchant_name: merchant.name,
    description: link.description,
    quote: pageQuote(quoteFee(merchant.feePlan, merchant.feeBearer, link.amount, link.currency), mine, state),
    state,
    notice: closed ?? (inUse ? IN_USE : used ? (mine ? USED_SINCE : USED) : null),
    link_in_use: inUse,
    attempt: mine ? toHostedAttempt(mine) : null,
    attempt_key: mine && byKey ? byKey.key : null,
    other_attempt: link.singleUse ? await otherAttemptOfOrder(base.db, { paymentLinkId: link.id }, mine) : null,
    pay_again_path: state === "open" && !link.singleUse ? `/pay/${link.id}` : null,
    success_url: null,
    cancel_url: null,
    status_path: `/pay/${link.id}/status${mine ? `?payment=${mine.id}` : ""}`,
    server_time: now.toISOString(),
  };
}

/**
 * Whether the page shows the attempt its address names (`?payment=`) to whoever opens it. The
 * payer's address bar holds `?payment=` once they have paid, and a link's address is one people
 * pass on (a reusable link to many payers, a single-use one forwarded or shared in a chat): a
 * finished attempt there (a receipt with the masked number and the wallet's reference, or a
 * decline's reason) is shown only to the browser that made it, by the keys it paid with
 * (OWN_ATTEMPTS_COOKIE). Anyone else gets the link as it stands: its form, or on a single-use link
 * someone has paid, that it is used. An attempt still under way is shown to whoever follows it:
 * hiding a prompt that is out would offer a form that pays a second time.
 */
function showsAttempt(link: PaymentLink, attempt: Payment, ownAttemptKeys: readonly string[]): boolean {
  if (!PHASE_IS_FINAL[ATTEMPT_PHASE[attempt.status]]) return true;
  return madeByAttempt(attempt, link.id, ownAttemptKeys);
}
