CREATE TABLE "security_events" (
	"id" text COLLATE "C" PRIMARY KEY NOT NULL,
	"merchant_id" text COLLATE "C" NOT NULL,
	"action" text NOT NULL,
	"livemode" boolean,
	"actor_type" text NOT NULL,
	"actor_id" text,
	"actor_label" text NOT NULL,
	"target_id" text,
	"target_label" text,
	"detail" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"client_address" text,
	"created_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
ALTER TABLE "security_events" ADD CONSTRAINT "security_events_merchant_id_merchants_id_fk" FOREIGN KEY ("merchant_id") REFERENCES "public"."merchants"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "security_events_merchant_idx" ON "security_events" USING btree ("merchant_id","id");