import { sql } from "drizzle-orm";
import { pgTable, text, uniqueIndex } from "drizzle-orm/pg-core";
import { createdAt, idColumn, tstz } from "./columns";
import { merchants } from "./merchants";

import { STAFF_ROLES } from "@/server/domain/staff";

export { STAFF_ROLES, type StaffRole } from "@/server/domain/staff";

export const staffUsers = pgTable(
  "staff_users",
  {
    id: idColumn("id").primaryKey(),
    merchantId: idColumn("merchant_id")
      .notNull()
      .references(() => merchants.id),
    email: text("email").notNull(),
    passwordHash: text("password_hash").notNull(),
    role: text("role", { enum: STAFF_ROLES }).notNull(),
    createdAt: createdAt(),
    /**
     * Set by every password change or reset, and by signing out everywhere: a session signed in
     * before it no longer counts.
     */
    sessionsRevokedAt: tstz("sessions_revoked_at"),
  },
  // A login is a business and an e-mail address (any case): sign-in names both. The same address
  // may have a login, with a password of its own, in each of several businesses.
  (t) => [uniqueIndex("staff_users_merchant_email_key").on(t.merchantId, sql`lower(${t.email})`)],
);

export type StaffUser = typeof staffUsers.$inferSelect;
