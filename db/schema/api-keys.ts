import { boolean, index, pgTable, text, uniqueIndex } from "drizzle-orm/pg-core";
import { KEY_KINDS } from "@/server/domain/api-keys";
import { createdAt, idColumn, tstz } from "./columns";
import { merchants } from "./merchants";

export const apiKeys = pgTable(
  "api_keys",
  {
    id: idColumn("id").primaryKey(),
    merchantId: idColumn("merchant_id")
      .notNull()
      .references(() => merchants.id),
    livemode: boolean("livemode").notNull(),
    kind: text("kind", { enum: KEY_KINDS }).notNull(),
    /** Granted scopes; empty for full secret keys, which hold them all. */
    scopes: text("scopes").array().notNull().default([]),
    name: text("name"),
    /** SHA-256 of the secret; the secret itself is never stored. */
    hash: text("hash").notNull(),
    displayPrefix: text("display_prefix").notNull(),
    createdAt: createdAt(),
    revokedAt: tstz("revoked_at"),
    lastUsedAt: tstz("last_used_at"),
  },
  (t) => [
    // Every /v1 request authenticates by this lookup.
    uniqueIndex("api_keys_hash_key").on(t.hash),
    // Dashboard key list per merchant and environment.
    index("api_keys_merchant_idx").on(t.merchantId, t.livemode, t.createdAt),
  ],
);

export type ApiKey = typeof apiKeys.$inferSelect;
