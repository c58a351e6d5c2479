import { index, pgTable, text } from "drizzle-orm/pg-core";
import { idColumn, tstz } from "./columns";
import { staffUsers } from "./staff-users";

/**
 * Dashboard sessions their staff member signed out of. A session cookie is a signed token that
 * stays readable until it runs out; signing out adds its id here, and no request is served on it
 * again, whoever kept a copy. A row is needed only until the session would have run out anyway.
 */
export const endedSessions = pgTable(
  "ended_sessions",
  {
    sessionId: text("session_id").primaryKey(),
    staffId: idColumn("staff_id")
      .notNull()
      .references(() => staffUsers.id, { onDelete: "cascade" }),
    endedAt: tstz("ended_at").notNull(),
    /** When the session would have run out: the row is forgotten after. */
    expiresAt: tstz("expires_at").notNull(),
  },
  (t) => [index("ended_sessions_expires_idx").on(t.expiresAt)],
);
