import type { PaymentStatus } from "@/server/domain/payment-status";

/**
 * A payment's status as staff see it. `unknown` and `unresolved` wait on the provider: they are
 * amber and say so, never red like a failure.
 */
const BADGE = {
  awaiting_customer: { label: "Awaiting customer", tone: "wait" },
  unknown: { label: "Confirming", tone: "wait" },
  unresolved: { label: "Unresolved", tone: "wait" },
  succeeded: { label: "Succeeded", tone: "good" },
  failed: { label: "Failed", tone: "bad" },
  expired: { label: "Expired", tone: "neutral" },
} as const satisfies Record<PaymentStatus, { label: string; tone: "good" | "bad" | "wait" | "neutral" }>;

export function PaymentStatusBadge({ status }: { status: PaymentStatus }) {
  const b = BADGE[status];
  return (
    <span className={`badge ${b.tone}`} title={status}>
      {b.label}
    </span>
  );
}

/** Any other status word with a tone (refunds, deliveries, endpoints, settlements). */
export function Badge({ tone, children }: { tone: "good" | "bad" | "wait" | "neutral"; children: string }) {
  return <span className={`badge ${tone}`}>{children}</span>;
}
