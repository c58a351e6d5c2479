import { sql } from "drizzle-orm";
import { bigint, boolean, index, integer, pgTable, primaryKey, text } from "drizzle-orm/pg-core";
import { CURRENCIES } from "@/server/domain/money";
import { SETTLEMENT_LINE_KINDS, SETTLEMENT_STATUSES } from "@/server/domain/settlements";
import { createdAt, idColumn, tstz } from "./columns";
import { merchants } from "./merchants";

/**
 * A payout to the merchant's bank for one merchant + environment + currency: succeeded payments
 * not settled before, less merchant-borne fees, less refunds that succeeded since the last batch.
 */
export const settlements = pgTable(
  "settlements",
  {
    id: idColumn("id").primaryKey(),
    merchantId: idColumn("merchant_id")
      .notNull()
      .references(() => merchants.id),
    livemode: boolean("livemode").notNull(),
    currency: text("currency", { enum: CURRENCIES }).notNull(),
    status: text("status", { enum: SETTLEMENT_STATUSES }).notNull().default("pending"),
    /**
     * Net payout: gross − fee_total − refund_total. Totals are bigint: one payment fits an integer,
     * but a day of them passes 2^31 minor units (ZWG 21.5 million), while 2^53 is far off.
     */
    amount: bigint("amount", { mode: "number" }).notNull(),
    grossAmount: bigint("gross_amount", { mode: "number" }).notNull(),
    feeTotal: bigint("fee_total", { mode: "number" }).notNull(),
    refundTotal: bigint("refund_total", { mode: "number" }).notNull(),
    paymentCount: integer("payment_count").notNull(),
    refundCount: integer("refund_count").notNull(),
    periodStart: tstz("period_start").notNull(),
    periodEnd: tstz("period_end").notNull(),
    /** Test mode: when the simulated payout happens. Null in live mode: an operator confirms it. */
    payAfter: tstz("pay_after"),
    paidAt: tstz("paid_at"),
    failedAt: tstz("failed_at"),
    failureMessage: text("failure_message"),
    createdAt: createdAt(),
    updatedAt: tstz("updated_at").notNull(),
  },
  (t) => [
    index("settlements_list_idx").on(t.merchantId, t.livemode, t.id),
    // Due work: test-mode payouts.
    index("settlements_payout_due_idx").on(t.payAfter).where(sql`${t.status} = 'pending'`),
  ],
);

export type Settlement = typeof settlements.$inferSelect;

/** One payment or refund in a batch, with the money it contributed. */
export const settlementLines = pgTable(
  "settlement_lines",
  {
    settlementId: idColumn("settlement_id")
      .notNull()
      .references(() => settlements.id),
    /** The payment (pay_…) or refund (re_…). */
    objectId: idColumn("object_id").notNull(),
    kind: text("kind", { enum: SETTLEMENT_LINE_KINDS }).notNull(),
    /** Payment: its amount; refund: the amount refunded (positive). */
    amount: integer("amount").notNull(),
    /** The fee the merchant bore on this payment (0 when the customer bore it, and for refunds). */
    fee: integer("fee").notNull(),
    /** What the line adds to the payout: amount − fee for a payment, −amount for a refund. */
    net: integer("net").notNull(),
    /** When the payment succeeded or the refund succeeded. */
    occurredAt: tstz("occurred_at").notNull(),
  },
  (t) => [
    // Line items of a batch, paginated by object id; an object is in a batch once.
    primaryKey({ name: "settlement_lines_pkey", columns: [t.settlementId, t.objectId] }),
  ],
);

export type SettlementLine = typeof settlementLines.$inferSelect;
