CREATE TABLE "events" (
	"id" text COLLATE "C" PRIMARY KEY NOT NULL,
	"merchant_id" text COLLATE "C" NOT NULL,
	"livemode" boolean NOT NULL,
	"type" text NOT NULL,
	"data" jsonb NOT NULL,
	"object_id" text COLLATE "C" NOT NULL,
	"created_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "outbox" (
	"id" text COLLATE "C" PRIMARY KEY NOT NULL,
	"topic" text NOT NULL,
	"payload" jsonb NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	"relayed_at" timestamp with time zone,
	"attempts" integer DEFAULT 0 NOT NULL
);
--> statement-breakpoint
CREATE TABLE "provider_callbacks" (
	"id" text COLLATE "C" PRIMARY KEY NOT NULL,
	"provider" text NOT NULL,
	"provider_event_id" text,
	"payment_id" text COLLATE "C",
	"reported_status" text NOT NULL,
	"reported_amount" integer,
	"outcome" text NOT NULL,
	"reason" text,
	"payload" text NOT NULL,
	"created_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
ALTER TABLE "payments" ADD COLUMN "next_check_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "payments" ADD COLUMN "check_attempts" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "payments" ADD COLUMN "resolution_reason" text;--> statement-breakpoint
ALTER TABLE "events" ADD CONSTRAINT "events_merchant_id_merchants_id_fk" FOREIGN KEY ("merchant_id") REFERENCES "public"."merchants"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "events_list_idx" ON "events" USING btree ("merchant_id","livemode","id");--> statement-breakpoint
CREATE INDEX "events_type_list_idx" ON "events" USING btree ("merchant_id","livemode","type","id");--> statement-breakpoint
CREATE INDEX "events_object_idx" ON "events" USING btree ("object_id","id");--> statement-breakpoint
CREATE INDEX "outbox_pending_idx" ON "outbox" USING btree ("created_at") WHERE "outbox"."relayed_at" is null;--> statement-breakpoint
CREATE INDEX "provider_callbacks_payment_idx" ON "provider_callbacks" USING btree ("payment_id","created_at");--> statement-breakpoint
CREATE INDEX "provider_callbacks_outcome_idx" ON "provider_callbacks" USING btree ("outcome","created_at");--> statement-breakpoint
CREATE INDEX "payments_expiry_due_idx" ON "payments" USING btree ("expires_at") WHERE "payments"."status" = 'awaiting_customer';--> statement-breakpoint
CREATE INDEX "payments_check_due_idx" ON "payments" USING btree ("next_check_at") WHERE "payments"."status" in ('unknown', 'unresolved');