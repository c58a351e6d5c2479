import { sql } from "drizzle-orm";
import { boolean, check, index, integer, jsonb, pgTable, text, uniqueIndex } from "drizzle-orm/pg-core";
import { FEE_BEARERS } from "@/server/domain/fees";
import { CURRENCIES, METHODS } from "@/server/domain/money";
import { FAILURE_CODES, PAYMENT_STATUSES } from "@/server/domain/payment-status";
import { createdAt, idColumn, tstz } from "./columns";
import { merchants } from "./merchants";

export const payments = pgTable(
  "payments",
  {
    id: idColumn("id").primaryKey(),
    merchantId: idColumn("merchant_id")
      .notNull()
      .references(() => merchants.id),
    livemode: boolean("livemode").notNull(),
    amount: integer("amount").notNull(),
    currency: text("currency", { enum: CURRENCIES }).notNull(),
    method: text("method", { enum: METHODS }).notNull(),
    reference: text("reference").notNull(),
    customerMsisdn: text("customer_msisdn").notNull(),
    network: text("network").notNull(),
    fee: integer("fee").notNull(),
    feeBearer: text("fee_bearer", { enum: FEE_BEARERS }).notNull(),
    chargedAmount: integer("charged_amount").notNull(),
    status: text("status", { enum: PAYMENT_STATUSES }).notNull(),
    failureCode: text("failure_code", { enum: FAILURE_CODES }),
    failureMessage: text("failure_message"),
    provider: text("provider").notNull(),
    providerReference: text("provider_reference"),
    metadata: jsonb("metadata").$type<Record<string, string>>().notNull().default({}),
    /** The Idempotency-Key that created it: a retry after a crash finds and finishes this row. */
    idempotencyKey: text("idempotency_key"),
    /** Null until the provider has taken the PIN prompt (or refused it). */
    promptSentAt: tstz("prompt_sent_at"),
    expiresAt: tstz("expires_at").notNull(),
    unknownSince: tstz("unknown_since"),
    succeededAt: tstz("succeeded_at"),
    failedAt: tstz("failed_at"),
    expiredAt: tstz("expired_at"),
    unresolvedAt: tstz("unresolved_at"),
    /** When reconciliation next asks the provider about an unknown or unresolved payment. */
    nextCheckAt: tstz("next_check_at"),
    checkAttempts: integer("check_attempts").notNull().default(0),
    /** Sum of this payment's succeeded refunds. */
    amountRefunded: integer("amount_refunded").notNull().default(0),
    /** Set when the customer paid through a payment link or a checkout session. */
    paymentLinkId: idColumn("payment_link_id"),
    checkoutSessionId: idColumn("checkout_session_id"),
    /** The settlement batch that paid this (succeeded) payment out; null until then. */
    settlementId: idColumn("settlement_id"),
    /** Staff's reason when they resolved an unresolved payment by hand. */
    resolutionReason: text("resolution_reason"),
    /** The staff member (usr_…) who resolved an unresolved payment by hand. */
    resolvedBy: text("resolved_by"),
    createdAt: createdAt(),
    updatedAt: tstz("updated_at").notNull(),
  },
  (t) => [
    // Spec rule 4: a reference is unique per merchant (and environment). Led by the reference, not
    // the merchant: led by the merchant it is shallower than the list index (references are shorter
    // than ids), and for a merchant the statistics have not seen yet the planner would list through
    // it and sort every payment of the merchant for each page (list-plans.test.ts).
    uniqueIndex("payments_reference_key").on(t.reference, t.merchantId, t.livemode),
    // One payment per Idempotency-Key, even if the idempotency record were lost.
    uniqueIndex("payments_idempotency_key")
      .on(t.merchantId, t.livemode, t.idempotencyKey)
      .where(sql`${t.idempotencyKey} is not null`),
    // GET /v1/payments: newest first by id (ids sort by time), keyset cursors, created[] bounds.
    index("payments_list_idx").on(t.merchantId, t.livemode, t.id),
    // GET /v1/payments?status=…
    index("payments_status_list_idx").on(t.merchantId, t.livemode, t.status, t.id),
    // The dashboard's search by the customer's number, newest first.
    index("payments_customer_list_idx").on(t.merchantId, t.livemode, t.customerMsisdn, t.id),
    // GET /v1/payments?search=…: substring match on reference.
    index("payments_reference_trgm_idx").using("gin", sql`${t.reference} gin_trgm_ops`),
    // Due work for the local runner: expiry of payments still waiting for the customer.
    index("payments_expiry_due_idx").on(t.expiresAt).where(sql`${t.status} = 'awaiting_customer'`),
    // Due work: provider status checks for unknown and unresolved payments.
    index("payments_check_due_idx").on(t.nextCheckAt).where(sql`${t.status} in ('unknown', 'unresolved')`),
    // A link's or a session's attempts (single-use and session checks, and their timelines).
    index("payments_link_idx").on(t.paymentLinkId, t.id).where(sql`${t.paymentLinkId} is not null`),
    index("payments_checkout_session_idx").on(t.checkoutSessionId, t.id).where(sql`${t.checkoutSessionId} is not null`),
    // Settlement: succeeded payments not yet paid out.
    index("payments_unsettled_idx")
      .on(t.merchantId, t.livemode, t.currency)
      .where(sql`${t.status} = 'succeeded' and ${t.settlementId} is null`),
    // …and those of them that succeeded before a cutoff: a run after the day's batches reads only what is left.
    index("payments_unsettled_due_idx").on(t.succeededAt).where(sql`${t.status} = 'succeeded' and ${t.settlementId} is null`),
    check("payments_amount_positive", sql`${t.amount} > 0`),
    check("payments_refunds_within_amount", sql`${t.amountRefunded} between 0 and ${t.amount}`),
    check("payments_charged_covers_amount", sql`${t.chargedAmount} >= ${t.amount}`),
  ],
);

export type Payment = typeof payments.$inferSelect;
