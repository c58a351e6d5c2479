CREATE TABLE "event_replays" (
	"id" text COLLATE "C" PRIMARY KEY NOT NULL,
	"merchant_id" text COLLATE "C" NOT NULL,
	"livemode" boolean NOT NULL,
	"created_gte" timestamp with time zone NOT NULL,
	"created_lt" timestamp with time zone NOT NULL,
	"types" jsonb,
	"endpoint_id" text COLLATE "C",
	"only_undelivered" boolean NOT NULL,
	"idempotency_key" text,
	"after_event_id" text COLLATE "C",
	"events" integer DEFAULT 0 NOT NULL,
	"deliveries" integer DEFAULT 0 NOT NULL,
	"status" text DEFAULT 'running' NOT NULL,
	"error" jsonb,
	"lease_until" timestamp with time zone,
	"created_at" timestamp with time zone NOT NULL,
	"finished_at" timestamp with time zone
);
--> statement-breakpoint
ALTER TABLE "event_replays" ADD CONSTRAINT "event_replays_merchant_id_merchants_id_fk" FOREIGN KEY ("merchant_id") REFERENCES "public"."merchants"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "event_replays_running_idx" ON "event_replays" USING btree ("lease_until") WHERE "event_replays"."status" = 'running';--> statement-breakpoint
CREATE INDEX "event_replays_key_idx" ON "event_replays" USING btree ("merchant_id","livemode","idempotency_key") WHERE "event_replays"."idempotency_key" is not null;