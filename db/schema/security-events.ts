import { boolean, index, jsonb, pgTable, text } from "drizzle-orm/pg-core";
import { SECURITY_ACTIONS, SECURITY_ACTOR_TYPES, type SecurityDetail } from "@/server/domain/security-log";
import { createdAt, idColumn } from "./columns";
import { merchants } from "./merchants";

/** The security log (server/domain/security-log.ts): one row per change of access, and per sign-in. */
export const securityEvents = pgTable(
  "security_events",
  {
    id: idColumn("id").primaryKey(),
    merchantId: idColumn("merchant_id")
      .notNull()
      .references(() => merchants.id),
    action: text("action", { enum: SECURITY_ACTIONS }).notNull(),
    /** The environment of what changed (a key, an endpoint); null for the team, sign-ins and settings. */
    livemode: boolean("livemode"),
    actorType: text("actor_type", { enum: SECURITY_ACTOR_TYPES }).notNull(),
    /** The staff member's or key's id; null for the system and for someone not signed in. */
    actorId: text("actor_id"),
    /** The actor as it was named then (an e-mail address, a key's prefix). */
    actorLabel: text("actor_label").notNull(),
    targetId: text("target_id"),
    targetLabel: text("target_label"),
    detail: jsonb("detail").$type<SecurityDetail>().notNull().default({}),
    /** Where the request came from, when a trusted proxy told (TRUSTED_PROXY_HOPS). */
    clientAddress: text("client_address"),
    createdAt: createdAt(),
  },
  // The dashboard's log: one merchant's entries, newest first, keyset by id.
  (t) => [index("security_events_merchant_idx").on(t.merchantId, t.id)],
);

export type SecurityEvent = typeof securityEvents.$inferSelect;
