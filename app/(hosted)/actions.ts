"use server";

import { headers } from "next/headers";
import { redirect, RedirectType } from "next/navigation";
import { isServiceError } from "@/server/domain/errors";
import { isAttemptKey } from "@/server/domain/hosted";
import { isId } from "@/server/domain/ids";
import { trustedClientAddress } from "@/server/http/client-address";
import { log } from "@/server/log";
import { payCheckoutSession } from "@/server/services/checkout-sessions/pay-checkout-session";
import { payPaymentLink } from "@/server/services/payment-links/pay-payment-link";
import { QUOTE_CHANGED_PARAM } from "@/server/services/payments/create-payment";
import type { CustomerContext } from "@/server/context";
import type { CustomerAttempt } from "@/server/services/payments/pay-through-origin";
import { systemContext } from "@/server/system-context";
import { AMOUNT_CHANGED_PARAM, IN_PROGRESS_PARAM, type PayFormState } from "@/components/checkout/pay-form-state";
import { keepOwnAttemptKey } from "./own-attempts";

/** The verbs' context for a customer's tap: no key, and the customer's address when the proxies in front tell it. */
async function customerContext(): Promise<CustomerContext> {
  return { ...(await systemContext()), clientAddress: trustedClientAddress((await headers()).get("x-forwarded-for")) };
}

/** Answers that mean the page itself has changed (used, expired): show it again. */
const RELOAD_PAGE = new Set(["link_used", "link_expired", "checkout_session_closed", "resource_missing"]);

const UNAVAILABLE =
  "We could not start the payment just now. Try again in a moment: the same attempt is reused, so you will not be charged twice.";

/**
 * The pay button on both hosted pages. With JavaScript it runs as an action; without, the form
 * posts here and the page renders again with the answer. Success redirects (303) to the page
 * that follows the attempt, so a reload never posts twice; the attempt key in the form makes a
 * double tap, or a tap sent again after a dropped connection, the same payment, and so does a tap
 * on a form given back with an answer, which carries the key it was sent with.
 */
async function attempt(
  form: FormData,
  pay: (attempt: CustomerAttempt) => Promise<{ id: string }>,
  pagePath: string,
  next: (paymentId: string) => string,
  reloadPath: string = pagePath,
): Promise<PayFormState> {
  const msisdn = String(form.get("msisdn") ?? "");
  const idempotencyKey = String(form.get("attempt_key") ?? "");
  // What the page showed; a form without it (an older page) is charged as it stands.
  const quoted = Number(form.get("quoted"));
  // The form drawn from any answer but a redirect sends this attempt's key again (PayFormState).
  const answer = (error: NonNullable<PayFormState["error"]>): PayFormState => ({ msisdn, attemptKey: isAttemptKey(idempotencyKey) ? idempotencyKey : null, error });
  let paymentId: string;
  try {
    paymentId = (await pay({ msisdn, idempotencyKey, quotedChargedAmount: Number.isSafeInteger(quoted) && quoted > 0 ? quoted : undefined })).id;
  } catch (e) {
    if (!isServiceError(e)) {
      log.error("hosted payment attempt failed", { page: pagePath, error: e });
      return answer({ code: "api_error", message: UNAVAILABLE, param: null });
    }
    if (RELOAD_PAGE.has(e.code)) redirect(reloadPath);
    // Another attempt at this order is under way (another tab, another phone): the page again,
    // following that one, with a word on why this number got no prompt.
    if (e.code === "payment_in_progress") redirect(`${pagePath}?${IN_PROGRESS_PARAM}=1`);
    // The charge changed since the page was rendered: the page again, with the new amount and a word on why.
    if (e.param === QUOTE_CHANGED_PARAM) redirect(`${pagePath}?${AMOUNT_CHANGED_PARAM}=1`);
    // The attempt's reference taken by another payment at the same moment: the merchant's matter,
    // not the customer's. The same attempt again steps past it.
    if (e.code === "reference_in_use") return answer({ code: "api_error", message: UNAVAILABLE, param: null });
    return answer({ code: e.code, message: e.message, param: e.param ?? null });
  }
  // Replacing the form's entry: Back from the attempt leaves the page rather than showing a form that would pay again.
  redirect(next(paymentId), RedirectType.replace);
}

export async function payLinkAction(linkId: string, _previous: PayFormState, form: FormData): Promise<PayFormState> {
  const path = `/pay/${linkId}`;
  // A retry after a failed attempt names it: refused (someone has used the link since), the page
  // comes back to that attempt and says the link is used, instead of dropping it without a word.
  const shown = String(form.get("payment") ?? "");
  return attempt(
    form,
    async (customer) => {
      const payment = await payPaymentLink(await customerContext(), { linkId, ...customer });
      // This browser made it: its page shows it this browser's receipt, and no one else's (showsAttempt).
      await keepOwnAttemptKey(linkId, customer.idempotencyKey);
      return payment;
    },
    path,
    (paymentId) => `${path}?payment=${paymentId}`,
    isId("payment", shown) ? `${path}?payment=${shown}` : path,
  );
}

export async function payCheckoutAction(sessionId: string, _previous: PayFormState, form: FormData): Promise<PayFormState> {
  const path = `/checkout/${sessionId}`;
  return attempt(form, async (customer) => payCheckoutSession(await customerContext(), { sessionId, ...customer }), path, () => path);
}
