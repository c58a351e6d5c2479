import { sql } from "drizzle-orm";
import { boolean, check, index, integer, jsonb, pgTable, text, uniqueIndex } from "drizzle-orm/pg-core";
import { CHECKOUT_SESSION_STATUSES } from "@/server/domain/checkout";
import { CURRENCIES } from "@/server/domain/money";
import { createdAt, idColumn, tstz } from "./columns";
import { merchants } from "./merchants";

/** One hosted checkout (`/checkout/{id}`) for one order: retried until a payment succeeds. */
export const checkoutSessions = pgTable(
  "checkout_sessions",
  {
    id: idColumn("id").primaryKey(),
    merchantId: idColumn("merchant_id")
      .notNull()
      .references(() => merchants.id),
    livemode: boolean("livemode").notNull(),
    amount: integer("amount").notNull(),
    currency: text("currency", { enum: CURRENCIES }).notNull(),
    reference: text("reference").notNull(),
    metadata: jsonb("metadata").$type<Record<string, string>>().notNull().default({}),
    successUrl: text("success_url").notNull(),
    cancelUrl: text("cancel_url"),
    /** `open` or `complete` as stored; an open session past `expires_at` reads as `expired`. */
    status: text("status", { enum: CHECKOUT_SESSION_STATUSES }).notNull().default("open"),
    /** The latest attempt's payment, and once complete the one that succeeded. */
    paymentId: idColumn("payment_id"),
    attemptCount: integer("attempt_count").notNull().default(0),
    expiresAt: tstz("expires_at").notNull(),
    completedAt: tstz("completed_at"),
    createdAt: createdAt(),
    updatedAt: tstz("updated_at").notNull(),
  },
  (t) => [
    // The reference_in_use rule, among sessions. Led by the reference, as payments_reference_key is.
    uniqueIndex("checkout_sessions_reference_key").on(t.reference, t.merchantId, t.livemode),
    index("checkout_sessions_list_idx").on(t.merchantId, t.livemode, t.id),
    check("checkout_sessions_amount_positive", sql`${t.amount} > 0`),
  ],
);

export type CheckoutSession = typeof checkoutSessions.$inferSelect;
