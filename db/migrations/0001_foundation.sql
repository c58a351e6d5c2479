CREATE TABLE "merchants" (
	"id" text COLLATE "C" PRIMARY KEY NOT NULL,
	"name" text NOT NULL,
	"slug" text NOT NULL,
	"fee_plan" jsonb NOT NULL,
	"fee_bearer" text DEFAULT 'merchant' NOT NULL,
	"payment_expiry_seconds" integer DEFAULT 180 NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	CONSTRAINT "merchants_expiry_range" CHECK ("merchants"."payment_expiry_seconds" between 30 and 3600)
);
--> statement-breakpoint
CREATE TABLE "staff_users" (
	"id" text COLLATE "C" PRIMARY KEY NOT NULL,
	"merchant_id" text COLLATE "C" NOT NULL,
	"email" text NOT NULL,
	"password_hash" text NOT NULL,
	"role" text NOT NULL,
	"created_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "api_keys" (
	"id" text COLLATE "C" PRIMARY KEY NOT NULL,
	"merchant_id" text COLLATE "C" NOT NULL,
	"livemode" boolean NOT NULL,
	"kind" text NOT NULL,
	"scopes" text[] DEFAULT '{}' NOT NULL,
	"name" text,
	"hash" text NOT NULL,
	"display_prefix" text NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	"revoked_at" timestamp with time zone,
	"last_used_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "payments" (
	"id" text COLLATE "C" PRIMARY KEY NOT NULL,
	"merchant_id" text COLLATE "C" NOT NULL,
	"livemode" boolean NOT NULL,
	"amount" integer NOT NULL,
	"currency" text NOT NULL,
	"method" text NOT NULL,
	"reference" text NOT NULL,
	"customer_msisdn" text NOT NULL,
	"network" text NOT NULL,
	"fee" integer NOT NULL,
	"fee_bearer" text NOT NULL,
	"charged_amount" integer NOT NULL,
	"status" text NOT NULL,
	"failure_code" text,
	"failure_message" text,
	"provider" text NOT NULL,
	"provider_reference" text,
	"metadata" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"idempotency_key" text,
	"prompt_sent_at" timestamp with time zone,
	"expires_at" timestamp with time zone NOT NULL,
	"unknown_since" timestamp with time zone,
	"succeeded_at" timestamp with time zone,
	"failed_at" timestamp with time zone,
	"expired_at" timestamp with time zone,
	"unresolved_at" timestamp with time zone,
	"created_at" timestamp with time zone NOT NULL,
	"updated_at" timestamp with time zone NOT NULL,
	CONSTRAINT "payments_amount_positive" CHECK ("payments"."amount" > 0),
	CONSTRAINT "payments_charged_covers_amount" CHECK ("payments"."charged_amount" >= "payments"."amount")
);
--> statement-breakpoint
CREATE TABLE "idempotency_keys" (
	"merchant_id" text COLLATE "C" NOT NULL,
	"livemode" boolean NOT NULL,
	"key" text NOT NULL,
	"request_hash" text NOT NULL,
	"state" text NOT NULL,
	"locked_at" timestamp with time zone NOT NULL,
	"response_status" integer,
	"response_body" text,
	"created_at" timestamp with time zone NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	CONSTRAINT "idempotency_keys_merchant_id_livemode_key_pk" PRIMARY KEY("merchant_id","livemode","key")
);
--> statement-breakpoint
ALTER TABLE "staff_users" ADD CONSTRAINT "staff_users_merchant_id_merchants_id_fk" FOREIGN KEY ("merchant_id") REFERENCES "public"."merchants"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "api_keys" ADD CONSTRAINT "api_keys_merchant_id_merchants_id_fk" FOREIGN KEY ("merchant_id") REFERENCES "public"."merchants"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "payments" ADD CONSTRAINT "payments_merchant_id_merchants_id_fk" FOREIGN KEY ("merchant_id") REFERENCES "public"."merchants"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "idempotency_keys" ADD CONSTRAINT "idempotency_keys_merchant_id_merchants_id_fk" FOREIGN KEY ("merchant_id") REFERENCES "public"."merchants"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "merchants_slug_key" ON "merchants" USING btree ("slug");--> statement-breakpoint
CREATE UNIQUE INDEX "staff_users_email_key" ON "staff_users" USING btree (lower("email"));--> statement-breakpoint
CREATE UNIQUE INDEX "api_keys_hash_key" ON "api_keys" USING btree ("hash");--> statement-breakpoint
CREATE INDEX "api_keys_merchant_idx" ON "api_keys" USING btree ("merchant_id","livemode","created_at");--> statement-breakpoint
CREATE UNIQUE INDEX "payments_reference_key" ON "payments" USING btree ("merchant_id","livemode","reference");--> statement-breakpoint
CREATE UNIQUE INDEX "payments_idempotency_key" ON "payments" USING btree ("merchant_id","livemode","idempotency_key") WHERE "payments"."idempotency_key" is not null;--> statement-breakpoint
CREATE INDEX "payments_list_idx" ON "payments" USING btree ("merchant_id","livemode","id");--> statement-breakpoint
CREATE INDEX "payments_status_list_idx" ON "payments" USING btree ("merchant_id","livemode","status","id");--> statement-breakpoint
CREATE INDEX "payments_reference_trgm_idx" ON "payments" USING gin ("reference" gin_trgm_ops);--> statement-breakpoint
CREATE INDEX "idempotency_keys_expires_idx" ON "idempotency_keys" USING btree ("expires_at");