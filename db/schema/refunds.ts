import { sql } from "drizzle-orm";
import { boolean, check, index, integer, jsonb, pgTable, text } from "drizzle-orm/pg-core";
import { CURRENCIES } from "@/server/domain/money";
import { REFUND_FAILURE_CODES, REFUND_REASONS, REFUND_STATUSES } from "@/server/domain/refunds";
import { createdAt, idColumn, tstz } from "./columns";
import { merchants } from "./merchants";
import { payments } from "./payments";

/** Money sent back to the customer's wallet for part or all of a succeeded payment. */
export const refunds = pgTable(
  "refunds",
  {
    id: idColumn("id").primaryKey(),
    merchantId: idColumn("merchant_id")
      .notNull()
      .references(() => merchants.id),
    livemode: boolean("livemode").notNull(),
    paymentId: idColumn("payment_id")
      .notNull()
      .references(() => payments.id),
    amount: integer("amount").notNull(),
    currency: text("currency", { enum: CURRENCIES }).notNull(),
    status: text("status", { enum: REFUND_STATUSES }).notNull(),
    reason: text("reason", { enum: REFUND_REASONS }),
    failureCode: text("failure_code", { enum: REFUND_FAILURE_CODES }),
    failureMessage: text("failure_message"),
    provider: text("provider").notNull(),
    providerReference: text("provider_reference"),
    metadata: jsonb("metadata").$type<Record<string, string>>().notNull().default({}),
    /**
     * The Idempotency-Key that created it: a retry that takes over a crashed request finds this
     * row (under the payment's lock) instead of refunding a second time.
     */
    idempotencyKey: text("idempotency_key"),
    /** Null until the provider has taken the refund request; a crash before that resubmits it. */
    submittedAt: tstz("submitted_at"),
    /** When the refund driver next asks the provider (or submits); null once final. */
    nextCheckAt: tstz("next_check_at"),
    checkAttempts: integer("check_attempts").notNull().default(0),
    /**
     * Submissions begun, counted before each is sent (submit-refund.ts): past the first, an earlier
     * one may have reached the provider unrecorded, so a refusal is checked with the provider.
     */
    submitAttempts: integer("submit_attempts").notNull().default(0),
    /** While set and ahead, a submission is on its way and no other may start (a crash frees it then). */
    submittingUntil: tstz("submitting_until"),
    succeededAt: tstz("succeeded_at"),
    failedAt: tstz("failed_at"),
    /** The settlement batch that deducted this (succeeded) refund; null until then. */
    settlementId: idColumn("settlement_id"),
    createdAt: createdAt(),
    updatedAt: tstz("updated_at").notNull(),
  },
  (t) => [
    // GET /v1/refunds: newest first, keyset on id.
    index("refunds_list_idx").on(t.merchantId, t.livemode, t.id),
    // GET /v1/refunds?payment=…, and the remaining-amount sum under the payment's lock.
    index("refunds_payment_idx").on(t.paymentId, t.id),
    // Due work: pending refunds to submit or ask the provider about.
    index("refunds_check_due_idx").on(t.nextCheckAt).where(sql`${t.status} = 'pending'`),
    // Settlement: succeeded refunds not yet deducted.
    index("refunds_unsettled_idx")
      .on(t.merchantId, t.livemode, t.currency)
      .where(sql`${t.status} = 'succeeded' and ${t.settlementId} is null`),
    // …and those of them that succeeded before a cutoff: a run after the day's batches reads only what is left.
    index("refunds_unsettled_due_idx").on(t.succeededAt).where(sql`${t.status} = 'succeeded' and ${t.settlementId} is null`),
    check("refunds_amount_positive", sql`${t.amount} > 0`),
  ],
);

export type Refund = typeof refunds.$inferSelect;
