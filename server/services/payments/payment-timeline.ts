import { and, eq } from "drizzle-orm";
import { staffUsers, type Payment } from "@/db/schema";
import type { ServiceContext } from "@/server/context";
import { PAYMENT_EVENT, type EventType } from "@/server/domain/events";
import type { PaymentStatus } from "@/server/domain/payment-status";
import { toPaymentResource, type PaymentResource } from "@/server/schemas/payments";
import { toRefundResource, type RefundResource } from "@/server/schemas/refunds";
import { toDeliveryResource, type WebhookDeliveryResource } from "@/server/schemas/webhooks";
import { listEvents } from "../events/list-events";
import { listRefunds } from "../refunds/list-refunds";
import { refundableAmount } from "../refunds/refundable-amount";
import { listDeliveries } from "../webhooks/list-deliveries";
import { getPayment } from "./get-payment";

/** One thing that happened to a payment, at `at` (RFC 3339). */
export type TimelineEntry =
  | {
      kind: "state";
      at: string;
      from: PaymentStatus | null;
      to: PaymentStatus;
      /** The event this change fired (there is none for arriving or for `unknown`). */
      event: string | null;
      /** Staff's reason, when they resolved an unresolved payment by hand. */
      reason: string | null;
      /** Who did: their e-mail, or null when they have since left the team (or no one did). */
      by: string | null;
    }
  | { kind: "event"; at: string; event: { id: string; type: EventType; object: string } }
  | { kind: "delivery"; at: string; delivery: WebhookDeliveryResource }
  | { kind: "refund"; at: string; refund: RefundResource };

export type PaymentTimeline = {
  payment: PaymentResource;
  /** What a refund may still take: the amount less pending and succeeded refunds. */
  refundable: number;
  entries: TimelineEntry[];
  /** More refunds, events or deliveries exist than the timeline shows (over TIMELINE_LIMIT of one kind). */
  truncated: boolean;
};

/** Of each kind; a payment has a handful, unless someone replays its events many times over. */
export const TIMELINE_LIMIT = 100;

/** Arrival order of the states, for changes stamped at the same instant. */
const STATE_ORDER = {
  awaiting_customer: 0,
  unknown: 1,
  unresolved: 2,
  succeeded: 3,
  failed: 3,
  expired: 3,
} as const satisfies Record<PaymentStatus, number>;

const KIND_ORDER = { state: 0, refund: 1, event: 2, delivery: 3 } as const satisfies Record<TimelineEntry["kind"], number>;

/**
 * Everything that happened to one payment, oldest first: its state changes, the events about it
 * and its refunds, those events' webhook deliveries with every attempt, and the refunds. Four
 * queries plus one for the attempts, whatever the number of events (no query per event). Another
 * merchant's or environment's payment is missing, as everywhere.
 */
export async function paymentTimeline(ctx: ServiceContext, paymentId: string): Promise<PaymentTimeline> {
  const payment = await getPayment(ctx, paymentId);
  const page = { limit: TIMELINE_LIMIT };
  const refunds = await listRefunds(ctx, { paymentId: payment.id }, page);
  // A checkout session's completion is about the session; it belongs here when this payment completed it.
  const objectIds = [payment.id, ...refunds.data.map((r) => r.id), ...(payment.checkoutSessionId ? [payment.checkoutSessionId] : [])];
  const allEvents = await listEvents(ctx, { objectIds }, page);
  const events = allEvents.data.filter((e) => e.type !== "checkout_session.completed" || (e.data.object as { payment?: unknown }).payment === payment.id);
  const deliveries = await listDeliveries(ctx, { eventIds: events.map((e) => e.id) }, page);

  const resolver = payment.resolvedBy ? await staffEmail(ctx, payment.resolvedBy) : null;

  const entries: TimelineEntry[] = [
    ...stateChanges(payment, new Map(events.filter((e) => e.objectId === payment.id).map((e) => [e.type, e.id])), resolver),
    ...events.map((e): TimelineEntry => ({ kind: "event", at: e.createdAt.toISOString(), event: { id: e.id, type: e.type, object: e.objectId } })),
    ...deliveries.data.map((d): TimelineEntry => ({ kind: "delivery", at: d.createdAt.toISOString(), delivery: toDeliveryResource(d) })),
    ...refunds.data.map((r): TimelineEntry => ({ kind: "refund", at: r.createdAt.toISOString(), refund: toRefundResource(r) })),
  ];
  entries.sort(
    (a, b) =>
      a.at.localeCompare(b.at) ||
      KIND_ORDER[a.kind] - KIND_ORDER[b.kind] ||
      (a.kind === "state" && b.kind === "state" ? STATE_ORDER[a.to] - STATE_ORDER[b.to] : entryId(a).localeCompare(entryId(b))),
  );

  return {
    payment: toPaymentResource(payment),
    // Summed over all its refunds, not the page of them listed here, as a refund's insert sums them.
    refundable: payment.status === "succeeded" ? await refundableAmount(ctx.db, payment) : 0,
    entries,
    truncated: refunds.hasMore || allEvents.hasMore || deliveries.hasMore,
  };
}

/**
 * The states the payment went through, from the times it stamps on arrival in each: `unknown`
 * fires no event and arriving fires none, so the row, not the event log, is the complete record.
 * The path runs in lifecycle order (states are visited at most once, terminal last), and each
 * change links the event it fired. A stamp earlier than the state before it (the test helper that
 * ages an unknown payment moves `unknown_since` back 24 h) is shown at that state's time instead,
 * so the story never runs backwards.
 */
function stateChanges(p: Payment, eventOf: Map<EventType, string>, resolver: string | null): TimelineEntry[] {
  const stamps = {
    awaiting_customer: p.createdAt,
    unknown: p.unknownSince,
    unresolved: p.unresolvedAt,
    succeeded: p.succeededAt,
    failed: p.failedAt,
    expired: p.expiredAt,
  } satisfies Record<PaymentStatus, Date | null>;
  const reached = (Object.keys(stamps) as PaymentStatus[])
    .flatMap((status) => (stamps[status] ? [{ status, at: stamps[status] }] : []))
    .sort((a, b) => STATE_ORDER[a.status] - STATE_ORDER[b.status] || a.at.getTime() - b.at.getTime());
  let previous = 0;
  return reached.map(({ status, at }, i): TimelineEntry => {
    const from = i === 0 ? null : reached[i - 1]!.status;
    const type = PAYMENT_EVENT[status];
    previous = Math.max(previous, at.getTime());
    return {
      kind: "state",
      at: new Date(previous).toISOString(),
      from,
      to: status,
      event: type ? (eventOf.get(type) ?? null) : null,
      reason: from === "unresolved" ? p.resolutionReason : null,
      by: from === "unresolved" ? resolver : null,
    };
  });
}

/** A staff member of this merchant, by e-mail; null once they have left the team. */
async function staffEmail(ctx: ServiceContext, staffId: string): Promise<string | null> {
  const [row] = await ctx.db
    .select({ email: staffUsers.email })
    .from(staffUsers)
    .where(and(eq(staffUsers.id, staffId), eq(staffUsers.merchantId, ctx.merchant.id)));
  return row?.email ?? null;
}

function entryId(e: TimelineEntry): string {
  switch (e.kind) {
    case "state":
      return e.to;
    case "event":
      return e.event.id;
    case "delivery":
      return e.delivery.id;
    case "refund":
      return e.refund.id;
  }
}
