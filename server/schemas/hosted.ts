import type { Payment } from "@/db/schema";
import { ATTEMPT_PHASE, CUSTOMER_FAILURE_MESSAGES, GENERIC_FAILURE_MESSAGE, takesAnotherAttempt, type AttemptPhase, type HostedPageState } from "@/server/domain/hosted";
import type { FeeQuote } from "@/server/domain/fees";
import type { Currency } from "@/server/domain/money";
import { maskMsisdn, NETWORK_NAMES, networkOf } from "@/server/domain/msisdn";
import { customerReference } from "@/server/domain/payment-links";
import type { PaymentStatus } from "@/server/domain/payment-status";

/**
 * A hosted page as its customer sees it: what the server renders, and what the page's island
 * polls (`GET /pay/{id}/status`, `GET /checkout/{id}/status`). Only what a customer may see: no
 * full number, no metadata, no merchant ids.
 */
export type HostedPage = {
  kind: "payment_link" | "checkout_session";
  id: string;
  livemode: boolean;
  merchant_name: string;
  /** What is being paid for: the link's description, or the session's order reference. */
  description: string;
  /** The fee preview: the same quote that creating the payment will store, as the customer sees it (`customerQuote`). */
  quote: CustomerQuote;
  state: HostedPageState;
  /** Why a closed page is closed, in words for the customer. */
  notice: string | null;
  /**
   * A single-use link held by someone else's payment that is still under way (`link_used`): it
   * takes payments again should that one not go through, so the page says "in use", not "used".
   */
  link_in_use: boolean;
  /** This customer's attempt: the one in the page's URL (links) or the session's latest. */
  attempt: HostedAttempt | null;
  /**
   * Asked by attempt keys (`…/status?attempt=`): the one of them that made `attempt`, so that the
   * browser which sent it knows which of its attempts that was. Null otherwise. Only the browser
   * that sent a key holds it, and it finds nothing that `?payment=` would not.
   */
  attempt_key: string | null;
  /**
   * Another attempt at the same order (a checkout session, a single-use link) that could make the
   * customer pay twice: `in_flight` when `attempt` is paid and another's PIN prompt may still be on
   * a phone, `paid` when `attempt` is under way and another has been paid (otherAttemptOfOrder).
   */
  other_attempt: OtherAttempt;
  /**
   * Where the customer makes another payment once theirs is paid: the link's own page, for a link
   * that takes any number of payments and takes them now (the receipt offers it). Null otherwise.
   */
  pay_again_path: string | null;
  /** Checkout sessions only. */
  success_url: string | null;
  /** The way back to the merchant: the session's cancel_url, or the home page of its success_url's site (returnToMerchant). */
  cancel_url: string | null;
  /** Where the island polls for this view. */
  status_path: string;
  /** The server's clock when this view was made (countdowns use it, not the phone's). */
  server_time: string;
};

export type OtherAttempt = "in_flight" | "paid" | null;

/**
 * A quote as a customer sees it: what they pay, and the fee only when it is theirs to pay. A fee the
 * merchant bears is the merchant's pricing, not the customer's business.
 */
export type CustomerQuote = Omit<FeeQuote, "fee"> & { fee: number | null };

export function customerQuote(quote: FeeQuote): CustomerQuote {
  return { ...quote, fee: quote.fee_bearer === "customer" ? quote.fee : null };
}

/**
 * The quote a page heads with: what this customer's attempt charged, while the page is about it
 * (waiting, confirming, paid, or a closed page), so the headline and the attempt never differ
 * when the merchant's fee setting has changed since; `current` (the next attempt's charge)
 * when the page offers the form again after a failed or expired attempt, or has none.
 */
export function pageQuote(current: FeeQuote, attempt: Payment | undefined, state: HostedPage["state"]): CustomerQuote {
  if (!attempt || takesAnotherAttempt(state, ATTEMPT_PHASE[attempt.status])) return customerQuote(current);
  return customerQuote({ amount: attempt.amount, currency: attempt.currency, fee: attempt.fee, fee_bearer: attempt.feeBearer, charged_amount: attempt.chargedAmount });
}

export type HostedAttempt = {
  id: string;
  status: PaymentStatus;
  phase: AttemptPhase;
  amount: number;
  charged_amount: number;
  currency: Currency;
  msisdn_masked: string;
  network_name: string | null;
  /** What the customer quotes to the merchant (customerReference): a link payment's code, else the reference. */
  reference: string;
  provider_reference: string | null;
  created_at: string;
  expires_at: string;
  succeeded_at: string | null;
  failure_message: string | null;
};

export function toHostedAttempt(p: Payment): HostedAttempt {
  const phase = ATTEMPT_PHASE[p.status];
  const network = networkOf(p.customerMsisdn);
  return {
    id: p.id,
    status: p.status,
    phase,
    amount: p.amount,
    charged_amount: p.chargedAmount,
    currency: p.currency,
    msisdn_masked: maskMsisdn(p.customerMsisdn),
    network_name: network ? NETWORK_NAMES[network] : null,
    reference: customerReference(p),
    provider_reference: p.providerReference,
    created_at: p.createdAt.toISOString(),
    expires_at: p.expiresAt.toISOString(),
    succeeded_at: p.succeededAt ? p.succeededAt.toISOString() : null,
    failure_message: phase === "failed" ? (p.failureCode ? CUSTOMER_FAILURE_MESSAGES[p.failureCode] : GENERIC_FAILURE_MESSAGE) : null,
  };
}
