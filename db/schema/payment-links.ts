import { sql } from "drizzle-orm";
import { boolean, check, index, integer, jsonb, pgTable, text } from "drizzle-orm/pg-core";
import { CURRENCIES } from "@/server/domain/money";
import { createdAt, idColumn, tstz } from "./columns";
import { merchants } from "./merchants";

/** A shareable page (`/pay/{id}`) that charges a fixed amount to whoever opens it. */
export const paymentLinks = pgTable(
  "payment_links",
  {
    id: idColumn("id").primaryKey(),
    merchantId: idColumn("merchant_id")
      .notNull()
      .references(() => merchants.id),
    livemode: boolean("livemode").notNull(),
    amount: integer("amount").notNull(),
    currency: text("currency", { enum: CURRENCIES }).notNull(),
    description: text("description").notNull(),
    /** Single-use links take one payment that is succeeded or may still succeed. */
    singleUse: boolean("single_use").notNull().default(false),
    active: boolean("active").notNull().default(true),
    expiresAt: tstz("expires_at"),
    metadata: jsonb("metadata").$type<Record<string, string>>().notNull().default({}),
    deactivatedAt: tstz("deactivated_at"),
    createdAt: createdAt(),
    updatedAt: tstz("updated_at").notNull(),
  },
  (t) => [
    // GET /v1/payment_links: newest first, keyset on id.
    index("payment_links_list_idx").on(t.merchantId, t.livemode, t.id),
    check("payment_links_amount_positive", sql`${t.amount} > 0`),
  ],
);

export type PaymentLink = typeof paymentLinks.$inferSelect;
