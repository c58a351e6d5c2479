import { TERMINAL, type PaymentStatus } from "./payment-status";

/**
 * Why a link takes no payment now, or null. Deactivated and expired are both `link_expired`, with
 * messages that say which, since the customer reading it needs a fresh link either way.
 */
/** Why a link takes no payment, or null; `formatTime` writes its expiry (RFC 3339 for the API, local time on its page). */
export function linkClosedReason(
  link: { active: boolean; expiresAt: Date | null },
  now: Date,
  formatTime: (at: Date) => string = (at) => at.toISOString(),
): string | null {
  if (!link.active) return "This payment link has been deactivated. Ask the merchant for a new one.";
  if (link.expiresAt && link.expiresAt.getTime() <= now.getTime()) {
    return `This payment link expired at ${formatTime(link.expiresAt)}. Ask the merchant for a new one.`;
  }
  return null;
}

/**
 * The payments that use up a single-use link: succeeded, or still able to succeed. A failed or
 * expired attempt leaves the link usable.
 */
export const holdsSingleUseLink = (status: PaymentStatus): boolean => status === "succeeded" || !TERMINAL[status];

/** How staff see a link: the merchant's switch first, then what its one payment did, then its expiry. */
export type LinkStatus = "deactivated" | "used" | "unresolved" | "paying" | "expired" | "active";

/**
 * A link's status for the dashboard. `holder` is the status of the payment holding a single-use
 * link (holdsSingleUseLink), if one does: succeeded → used; unresolved (no outcome a day on,
 * waiting on staff to resolve it) → unresolved; still able to succeed otherwise → paying. A used
 * link stays "used" after its expiry, since that is what happened to it, and an unresolved one
 * "unresolved", since someone has to act on it.
 */
export function linkStatus(link: { active: boolean; singleUse: boolean; expiresAt: Date | null }, holder: PaymentStatus | undefined, now: Date): LinkStatus {
  if (!link.active) return "deactivated";
  if (link.singleUse && holder === "succeeded") return "used";
  if (link.singleUse && holder === "unresolved") return "unresolved";
  if (link.expiresAt && link.expiresAt.getTime() <= now.getTime()) return "expired";
  if (link.singleUse && holder !== undefined && holdsSingleUseLink(holder)) return "paying";
  return "active";
}

const CODE_CHARS = 8;

/**
 * A link payment's reference: traceable to its link (a search for the link id finds them all), and
 * unique per payment by the payment id's last characters, its code.
 */
export const linkPaymentReference = (linkId: string, paymentId: string): string => `${linkId}-${paymentId.slice(-CODE_CHARS)}`;

/**
 * The reference a customer is asked to quote: the merchant's own as it is, but of a link payment only
 * its code, since `plink_…-` is long to read out and the code alone finds it (a reference search
 * matches any part, in any case). In capitals, as codes read out are written: the alphabet has no
 * I, L, O or U to mistake for a digit.
 */
export function customerReference(payment: { id: string; reference: string; paymentLinkId: string | null }): string {
  const ofLink = payment.paymentLinkId !== null && payment.reference === linkPaymentReference(payment.paymentLinkId, payment.id);
  return ofLink ? payment.id.slice(-CODE_CHARS).toUpperCase() : payment.reference;
}
