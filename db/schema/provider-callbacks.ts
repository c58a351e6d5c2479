import { index, integer, pgTable, text } from "drizzle-orm/pg-core";
import { createdAt, idColumn } from "./columns";

export const CALLBACK_OUTCOMES = ["applied", "duplicate", "ignored", "quarantined"] as const;
export type CallbackOutcome = (typeof CALLBACK_OUTCOMES)[number];

/**
 * Every verified callback a provider sent, and what we did with it. Quarantined ones (amount
 * mismatch) wait here for staff; ignored ones (unknown payment, stale news) are kept for audit.
 */
export const providerCallbacks = pgTable(
  "provider_callbacks",
  {
    id: idColumn("id").primaryKey(),
    provider: text("provider").notNull(),
    /** The provider's own id for this notification, when it has one. */
    providerEventId: text("provider_event_id"),
    paymentId: idColumn("payment_id"),
    reportedStatus: text("reported_status").notNull(),
    reportedAmount: integer("reported_amount"),
    outcome: text("outcome", { enum: CALLBACK_OUTCOMES }).notNull(),
    reason: text("reason"),
    payload: text("payload").notNull(),
    createdAt: createdAt(),
  },
  (t) => [
    // A payment's timeline, and staff's quarantine queue.
    index("provider_callbacks_payment_idx").on(t.paymentId, t.createdAt),
    index("provider_callbacks_outcome_idx").on(t.outcome, t.createdAt),
  ],
);

export type ProviderCallback = typeof providerCallbacks.$inferSelect;
