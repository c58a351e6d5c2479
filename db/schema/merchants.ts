import { sql } from "drizzle-orm";
import { check, integer, jsonb, pgTable, text, uniqueIndex } from "drizzle-orm/pg-core";
import { FEE_BEARERS, type FeeBearer, type FeePlan } from "@/server/domain/fees";
import { createdAt, idColumn } from "./columns";

export const merchants = pgTable(
  "merchants",
  {
    id: idColumn("id").primaryKey(),
    name: text("name").notNull(),
    slug: text("slug").notNull(),
    feePlan: jsonb("fee_plan").$type<FeePlan>().notNull(),
    feeBearer: text("fee_bearer", { enum: FEE_BEARERS }).$type<FeeBearer>().notNull().default("merchant"),
    paymentExpirySeconds: integer("payment_expiry_seconds").notNull().default(180),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex("merchants_slug_key").on(t.slug),
    check("merchants_expiry_range", sql`${t.paymentExpirySeconds} between 30 and 3600`),
  ],
);

export type Merchant = typeof merchants.$inferSelect;
