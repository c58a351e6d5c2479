import { eq } from "drizzle-orm";
import { checkoutSessions, merchants, payments } from "@/db/schema";
import { checkoutSessionStatus, orderTitle } from "@/server/domain/checkout";
import { quoteFee } from "@/server/domain/fees";
import { returnToMerchant } from "@/server/domain/hosted";
import { isId } from "@/server/domain/ids";
import type { BaseContext } from "@/server/context";
import { pageQuote, toHostedAttempt, type HostedPage } from "@/server/schemas/hosted";
import { newestPaymentOfAttempts } from "../payments/pay-through-origin";
import { otherAttemptOfOrder } from "./other-attempt";

const NOTICES = {
  open: null,
  complete: "This checkout has been paid.",
  expired: "This checkout has expired. Return to the merchant to start again.",
} as const;

/**
 * `/checkout/{id}` as the customer sees it, or null for no such session. The session's latest
 * attempt is part of it, so reopening the page (or polling it) shows where that attempt is.
 * With `attemptKeys`, the attempt is the newest one the browser sent with one of those keys, or
 * none: how a page whose answer was lost learns whether its attempt arrived.
 */
export async function viewCheckoutPage(base: BaseContext, sessionId: string, attemptKeys?: readonly string[]): Promise<HostedPage | null> {
  if (!isId("checkoutSession", sessionId)) return null;
  const now = base.clock.now();
  const [row] = await base.db
    .select({ session: checkoutSessions, merchant: { name: merchants.name, feePlan: merchants.feePlan, feeBearer: merchants.feeBearer } })
    .from(checkoutSessions)
    .innerJoin(merchants, eq(merchants.id, checkoutSessions.merchantId))
    .where(eq(checkoutSessions.id, sessionId));
  if (!row) return null;
  const { session, merchant } = row;
  const byKey = attemptKeys?.length ? await newestPaymentOfAttempts(base.db, session, attemptKeys) : undefined;
  const [attempt] =
    attemptKeys?.length
      ? byKey
        ? [byKey.payment]
        : []
      : session.paymentId
        ? await base.db.select().from(payments).where(eq(payments.id, session.paymentId))
        : [];
  const state = checkoutSessionStatus(session, now);

  return {
    kind: "checkout_session",
    id: session.id,
    livemode: session.livemode,
    merchant_name: merchant.name,
    description: orderTitle(session.reference),
    quote: pageQuote(quoteFee(merchant.feePlan, merchant.feeBearer, session.amount, session.currency), attempt, state),
    state,
    notice: NOTICES[state],
    attempt: attempt ? toHostedAttempt(attempt) : null,
    attempt_key: byKey?.key ?? null,
    // A session completes by pointing at the attempt that paid it (transitionPayment).
    link_in_use: false,
    other_attempt: await otherAttemptOfOrder(base.db, { checkoutSessionId: session.id }, attempt, session.completedAt ? session.paymentId : null),
    // One order, one payment.
    pay_again_path: null,
    // Where a paid checkout goes next: told once it is paid, so that the page is no shortcut to it.
    success_url: attempt?.status === "succeeded" ? session.successUrl : null,
    // The way back to the merchant, on a closed page as on an open one.
    cancel_url: returnToMerchant({ cancel_url: session.cancelUrl, success_url: session.successUrl }),
    status_path: `/checkout/${session.id}/status`,
    server_time: now.toISOString(),
  };
}
