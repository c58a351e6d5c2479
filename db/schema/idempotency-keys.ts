import { boolean, index, integer, pgTable, primaryKey, text } from "drizzle-orm/pg-core";
import { createdAt, idColumn, tstz } from "./columns";
import { merchants } from "./merchants";

export const IDEMPOTENCY_STATES = ["in_progress", "completed"] as const;

export const idempotencyKeys = pgTable(
  "idempotency_keys",
  {
    merchantId: idColumn("merchant_id")
      .notNull()
      .references(() => merchants.id),
    livemode: boolean("livemode").notNull(),
    key: text("key").notNull(),
    /** SHA-256 of method, path and body: the same key with anything else is `idempotency_key_reused`. */
    requestHash: text("request_hash").notNull(),
    state: text("state", { enum: IDEMPOTENCY_STATES }).notNull(),
    /** When the current holder took the key; a holder older than the lock timeout has crashed. */
    lockedAt: tstz("locked_at").notNull(),
    responseStatus: integer("response_status"),
    /** The exact bytes sent, replayed byte for byte. */
    responseBody: text("response_body"),
    createdAt: createdAt(),
    expiresAt: tstz("expires_at").notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.merchantId, t.livemode, t.key] }),
    // Sweeping keys older than 24 h.
    index("idempotency_keys_expires_idx").on(t.expiresAt),
  ],
);

export type IdempotencyRecord = typeof idempotencyKeys.$inferSelect;
