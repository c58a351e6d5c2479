import { sql, type SQL } from "drizzle-orm";
import { boolean, index, integer, jsonb, pgTable, smallint, text, type AnyPgColumn } from "drizzle-orm/pg-core";
import { NOT_SENT } from "@/server/domain/webhooks";
import { createdAt, idColumn, sealedText, tstz } from "./columns";
import { events } from "./events";
import { merchants } from "./merchants";

/** Where a merchant wants its events, per environment. */
export const webhookEndpoints = pgTable(
  "webhook_endpoints",
  {
    id: idColumn("id").primaryKey(),
    merchantId: idColumn("merchant_id")
      .notNull()
      .references(() => merchants.id),
    livemode: boolean("livemode").notNull(),
    url: text("url").notNull(),
    /** Event types, or `["*"]` for all of them. */
    enabledEvents: text("enabled_events").array().notNull(),
    description: text("description"),
    metadata: jsonb("metadata").$type<Record<string, string>>().notNull().default({}),
    status: text("status", { enum: ["enabled", "disabled"] }).notNull().default("enabled"),
    /** The signing secret (`whsec_…`), sealed: HMAC keys must be recoverable, so not hashed. */
    secret: sealedText("secret").notNull(),
    /** After a roll, the old secret keeps signing alongside the new one until this time. */
    previousSecret: sealedText("previous_secret"),
    previousSecretExpiresAt: tstz("previous_secret_expires_at"),
    /** Failed attempts in a row; 5 make the endpoint degraded, one success resets it. */
    consecutiveFailures: integer("consecutive_failures").notNull().default(0),
    degradedSince: tstz("degraded_since"),
    createdAt: createdAt(),
    updatedAt: tstz("updated_at").notNull(),
    /** Deleted endpoints are kept for the deliveries that point at them, and hidden everywhere. */
    deletedAt: tstz("deleted_at"),
  },
  (t) => [index("webhook_endpoints_list_idx").on(t.merchantId, t.livemode, t.id)],
);

export type WebhookEndpoint = typeof webhookEndpoints.$inferSelect;

export const DELIVERY_STATUSES = ["pending", "delivered", "failed"] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

/** One event on its way to one endpoint; retried on the schedule until delivered or given up. */
export const webhookDeliveries = pgTable(
  "webhook_deliveries",
  {
    id: idColumn("id").primaryKey(),
    merchantId: idColumn("merchant_id")
      .notNull()
      .references(() => merchants.id),
    livemode: boolean("livemode").notNull(),
    eventId: idColumn("event_id")
      .notNull()
      .references(() => events.id),
    endpointId: idColumn("endpoint_id")
      .notNull()
      .references(() => webhookEndpoints.id),
    status: text("status", { enum: DELIVERY_STATUSES }).notNull().default("pending"),
    /** Why it exists: the event itself, or a replay asked for by the merchant. */
    reason: text("reason", { enum: ["event", "replay"] }).notNull(),
    attemptCount: smallint("attempt_count").notNull().default(0),
    firstAttemptAt: tstz("first_attempt_at"),
    lastAttemptAt: tstz("last_attempt_at"),
    /** When the next attempt is due (or the lease of the worker attempting it ends); null once settled. */
    nextAttemptAt: tstz("next_attempt_at"),
    /**
     * The scheduled retry a replay brought forward to now (queueReplay): should that attempt fail,
     * the delivery goes back to it. Null when the next attempt is the schedule's own.
     */
    resumeAt: tstz("resume_at"),
    /** Attempts a replay brought forward: they are not steps of the retry schedule. */
    replayedAttempts: smallint("replayed_attempts").notNull().default(0),
    deliveredAt: tstz("delivered_at"),
    createdAt: createdAt(),
  },
  (t) => [
    index("webhook_deliveries_list_idx").on(t.merchantId, t.livemode, t.id),
    index("webhook_deliveries_event_idx").on(t.eventId, t.id),
    index("webhook_deliveries_endpoint_idx").on(t.endpointId, t.id),
    // GET /v1/webhook_deliveries?status=failed: failures are few and may be old, and a walk of the
    // list index filtering for them reads every delivery of the merchant first. Pending ones ride
    // the due index below; delivered ones are most of the list.
    index("webhook_deliveries_failed_idx").on(t.merchantId, t.livemode, t.id).where(sql`${t.status} = 'failed'`),
    // The runner's and the sweeper's claim: pending deliveries by due time.
    index("webhook_deliveries_due_idx").on(t.nextAttemptAt).where(sql`${t.status} = 'pending'`),
  ],
);

export type WebhookDelivery = typeof webhookDeliveries.$inferSelect;

/** Every attempt, as the merchant's debugging needs it. */
export const webhookAttempts = pgTable(
  "webhook_attempts",
  {
    id: idColumn("id").primaryKey(),
    deliveryId: idColumn("delivery_id")
      .notNull()
      .references(() => webhookDeliveries.id),
    /**
     * The delivery's endpoint, kept here so that an endpoint's recent attempts are read from one
     * index. No foreign key: the delivery's already holds, and an attempt's insert is on the
     * delivery path.
     */
    endpointId: idColumn("endpoint_id").notNull(),
    attemptedAt: tstz("attempted_at").notNull(),
    statusCode: smallint("status_code"),
    latencyMs: integer("latency_ms").notNull(),
    error: text("error"),
    /** The first 1 KB of the receiver's answer. */
    responseBody: text("response_body").notNull(),
  },
  (t) => [
    index("webhook_attempts_delivery_idx").on(t.deliveryId, t.id),
    // The dashboard's stats of an endpoint's last day (endpointAttemptStats): the attempts that
    // were sent, by time. The migration adds INCLUDE (status_code), which drizzle does not model,
    // so the stats are read from the index alone.
    index("webhook_attempts_endpoint_idx").on(t.endpointId, t.attemptedAt).where(attemptSent(t)),
    // And its last failure: the failed ones alone, so that an endpoint with none in the window is
    // answered at once, not by reading back through every attempt it made in it.
    index("webhook_attempts_endpoint_failed_idx").on(t.endpointId, t.attemptedAt).where(sql`(${attemptSent(t)}) and ${attemptFailed(t)}`),
  ],
);

export type WebhookAttempt = typeof webhookAttempts.$inferSelect;

/**
 * The parts of the two partial indexes' predicates above, for them and for the queries that must
 * state them word for word to use them: values written into the text, not bound (db/literal.ts
 * says why). An attempt recorded with NOT_SENT did not reach the receiver. (Not parenthesised:
 * the first index's predicate is it as it stands.)
 */
export function attemptSent(t: { error: AnyPgColumn }): SQL {
  return sql`${t.error} is null or ${t.error} not like ${sql.raw(`'${NOT_SENT}%'`)}`;
}

/** Anything but a 2xx, as the delivery decides. */
export function attemptFailed(t: { statusCode: AnyPgColumn }): SQL {
  return sql`(${t.statusCode} is null or ${t.statusCode} not between 200 and 299)`;
}
