import type { PaymentStatus } from "@/server/domain/payment-status";

/** A timestamp in Harare time; the ISO form goes in `<time dateTime>`. */
export { formatWhen as when } from "../kit";

/** Status names for filters and the timeline: `unknown` reads as being confirmed, never as failed. */
export const STATUS_LABEL = {
  awaiting_customer: "Awaiting customer",
  unknown: "Confirming with provider",
  unresolved: "Unresolved",
  succeeded: "Succeeded",
  failed: "Failed",
  expired: "Expired",
} as const satisfies Record<PaymentStatus, string>;

/** A payment whose outcome is due within seconds or minutes (a prompt out, a provider being asked): pages that show it ask again soon. */
export const settlesSoon = (status: PaymentStatus) => status === "awaiting_customer" || status === "unknown";
