import type { ProviderOutcome, RefundOutcome } from "../port";

/** The sandbox wallet's own status words, as a real provider's API would send them. */
export const SANDBOX_STATUSES = ["PENDING", "SUCCESS", "INSUFFICIENT_FUNDS", "DECLINED", "CANCELLED", "EXPIRED", "NOT_FOUND", "UNKNOWN"] as const;
export type SandboxStatus = (typeof SANDBOX_STATUSES)[number];

/** The one mapping from the sandbox's statuses to ours: a new status will not compile until decided. */
const OUTCOMES = {
  PENDING: { kind: "pending" },
  SUCCESS: { kind: "succeeded" },
  INSUFFICIENT_FUNDS: { kind: "failed", failureCode: "insufficient_funds", message: "The customer's wallet does not hold enough money." },
  DECLINED: { kind: "failed", failureCode: "declined", message: "The wallet provider declined the payment." },
  CANCELLED: { kind: "failed", failureCode: "customer_cancelled", message: "The customer cancelled the payment on their phone." },
  // The prompt timed out on the phone or never arrived: no money moved, nothing was declined.
  EXPIRED: { kind: "pending" },
  NOT_FOUND: { kind: "pending", record: "none" },
  UNKNOWN: { kind: "unknown" },
} as const satisfies Record<SandboxStatus, ProviderOutcome>;

export function toOutcome(status: SandboxStatus): ProviderOutcome {
  return OUTCOMES[status];
}

export function isSandboxStatus(value: unknown): value is SandboxStatus {
  return typeof value === "string" && (SANDBOX_STATUSES as readonly string[]).includes(value);
}

/** The sandbox's refund status words. */
export const SANDBOX_REFUND_STATUSES = ["PROCESSING", "REFUNDED", "REFUND_FAILED"] as const;
export type SandboxRefundStatus = (typeof SANDBOX_REFUND_STATUSES)[number];

const REFUND_OUTCOMES = {
  PROCESSING: { kind: "pending" },
  REFUNDED: { kind: "succeeded" },
  REFUND_FAILED: {
    kind: "failed",
    failureCode: "refund_declined",
    message: "The wallet provider could not credit the customer's wallet: it no longer accepts incoming transfers.",
  },
} as const satisfies Record<SandboxRefundStatus, RefundOutcome>;

export function toRefundOutcome(status: SandboxRefundStatus): RefundOutcome {
  return REFUND_OUTCOMES[status];
}
