import { bigint, boolean, index, integer, jsonb, pgTable, primaryKey } from "drizzle-orm/pg-core";
import type { Currency } from "@/server/domain/money";
import type { PaymentStatus } from "@/server/domain/payment-status";
import { idColumn, tstz } from "./columns";

/** One group of a day's payments: how many, their amount and what was refunded of it. */
export type DayBucket = { status: PaymentStatus; currency: Currency; n: number; amount: number; refunded: number };

/**
 * A finished Harare day's payments of one merchant and environment, summed by status and currency:
 * what the dashboard's overview reads instead of summing the day's rows again. `day` is the day
 * number on the Harare calendar (days since 1970-01-01 there). Stored by the overview once the day
 * has been over for an hour, and stale as soon as `payment_day_changes` holds a row for it.
 */
export const paymentDayTotals = pgTable(
  "payment_day_totals",
  {
    merchantId: idColumn("merchant_id").notNull(),
    livemode: boolean("livemode").notNull(),
    day: integer("day").notNull(),
    buckets: jsonb("buckets").$type<DayBucket[]>().notNull(),
    computedAt: tstz("computed_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.merchantId, t.livemode, t.day] })],
);

/**
 * A change to a payment of a day that is over (a late outcome, a refund, a row written with an
 * earlier date), written by triggers on `payments` in the change's own transaction, so no code
 * path can forget it. Insert-only: concurrent changes never wait on each other here.
 */
export const paymentDayChanges = pgTable(
  "payment_day_changes",
  {
    id: bigint("id", { mode: "number" }).primaryKey().generatedAlwaysAsIdentity(),
    merchantId: idColumn("merchant_id").notNull(),
    livemode: boolean("livemode").notNull(),
    day: integer("day").notNull(),
  },
  (t) => [index("payment_day_changes_day_idx").on(t.merchantId, t.livemode, t.day)],
);
