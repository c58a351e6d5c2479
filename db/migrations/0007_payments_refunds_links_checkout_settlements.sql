CREATE TABLE "refunds" (
	"id" text COLLATE "C" PRIMARY KEY NOT NULL,
	"merchant_id" text COLLATE "C" NOT NULL,
	"livemode" boolean NOT NULL,
	"payment_id" text COLLATE "C" NOT NULL,
	"amount" integer NOT NULL,
	"currency" text NOT NULL,
	"status" text NOT NULL,
	"reason" text,
	"failure_code" text,
	"failure_message" text,
	"provider" text NOT NULL,
	"provider_reference" text,
	"metadata" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"submitted_at" timestamp with time zone,
	"next_check_at" timestamp with time zone,
	"check_attempts" integer DEFAULT 0 NOT NULL,
	"succeeded_at" timestamp with time zone,
	"failed_at" timestamp with time zone,
	"settlement_id" text COLLATE "C",
	"created_at" timestamp with time zone NOT NULL,
	"updated_at" timestamp with time zone NOT NULL,
	CONSTRAINT "refunds_amount_positive" CHECK ("refunds"."amount" > 0)
);
--> statement-breakpoint
CREATE TABLE "payment_links" (
	"id" text COLLATE "C" PRIMARY KEY NOT NULL,
	"merchant_id" text COLLATE "C" NOT NULL,
	"livemode" boolean NOT NULL,
	"amount" integer NOT NULL,
	"currency" text NOT NULL,
	"description" text NOT NULL,
	"single_use" boolean DEFAULT false NOT NULL,
	"active" boolean DEFAULT true NOT NULL,
	"expires_at" timestamp with time zone,
	"metadata" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"deactivated_at" timestamp with time zone,
	"created_at" timestamp with time zone NOT NULL,
	"updated_at" timestamp with time zone NOT NULL,
	CONSTRAINT "payment_links_amount_positive" CHECK ("payment_links"."amount" > 0)
);
--> statement-breakpoint
CREATE TABLE "checkout_sessions" (
	"id" text COLLATE "C" PRIMARY KEY NOT NULL,
	"merchant_id" text COLLATE "C" NOT NULL,
	"livemode" boolean NOT NULL,
	"amount" integer NOT NULL,
	"currency" text NOT NULL,
	"reference" text NOT NULL,
	"metadata" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"success_url" text NOT NULL,
	"cancel_url" text,
	"status" text DEFAULT 'open' NOT NULL,
	"payment_id" text COLLATE "C",
	"attempt_count" integer DEFAULT 0 NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"completed_at" timestamp with time zone,
	"created_at" timestamp with time zone NOT NULL,
	"updated_at" timestamp with time zone NOT NULL,
	CONSTRAINT "checkout_sessions_amount_positive" CHECK ("checkout_sessions"."amount" > 0)
);
--> statement-breakpoint
CREATE TABLE "settlement_lines" (
	"settlement_id" text COLLATE "C" NOT NULL,
	"object_id" text COLLATE "C" NOT NULL,
	"kind" text NOT NULL,
	"amount" integer NOT NULL,
	"fee" integer NOT NULL,
	"net" integer NOT NULL,
	"occurred_at" timestamp with time zone NOT NULL,
	CONSTRAINT "settlement_lines_pkey" PRIMARY KEY("settlement_id","object_id")
);
--> statement-breakpoint
CREATE TABLE "settlements" (
	"id" text COLLATE "C" PRIMARY KEY NOT NULL,
	"merchant_id" text COLLATE "C" NOT NULL,
	"livemode" boolean NOT NULL,
	"currency" text NOT NULL,
	"status" text DEFAULT 'pending' NOT NULL,
	"amount" integer NOT NULL,
	"gross_amount" integer NOT NULL,
	"fee_total" integer NOT NULL,
	"refund_total" integer NOT NULL,
	"payment_count" integer NOT NULL,
	"refund_count" integer NOT NULL,
	"period_start" timestamp with time zone NOT NULL,
	"period_end" timestamp with time zone NOT NULL,
	"pay_after" timestamp with time zone,
	"paid_at" timestamp with time zone,
	"failed_at" timestamp with time zone,
	"failure_message" text,
	"created_at" timestamp with time zone NOT NULL,
	"updated_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
ALTER TABLE "payments" ADD COLUMN "amount_refunded" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "payments" ADD COLUMN "payment_link_id" text COLLATE "C";--> statement-breakpoint
ALTER TABLE "payments" ADD COLUMN "checkout_session_id" text COLLATE "C";--> statement-breakpoint
ALTER TABLE "payments" ADD COLUMN "settlement_id" text COLLATE "C";--> statement-breakpoint
ALTER TABLE "refunds" ADD CONSTRAINT "refunds_merchant_id_merchants_id_fk" FOREIGN KEY ("merchant_id") REFERENCES "public"."merchants"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "refunds" ADD CONSTRAINT "refunds_payment_id_payments_id_fk" FOREIGN KEY ("payment_id") REFERENCES "public"."payments"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "payment_links" ADD CONSTRAINT "payment_links_merchant_id_merchants_id_fk" FOREIGN KEY ("merchant_id") REFERENCES "public"."merchants"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "checkout_sessions" ADD CONSTRAINT "checkout_sessions_merchant_id_merchants_id_fk" FOREIGN KEY ("merchant_id") REFERENCES "public"."merchants"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "settlement_lines" ADD CONSTRAINT "settlement_lines_settlement_id_settlements_id_fk" FOREIGN KEY ("settlement_id") REFERENCES "public"."settlements"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "settlements" ADD CONSTRAINT "settlements_merchant_id_merchants_id_fk" FOREIGN KEY ("merchant_id") REFERENCES "public"."merchants"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "refunds_list_idx" ON "refunds" USING btree ("merchant_id","livemode","id");--> statement-breakpoint
CREATE INDEX "refunds_payment_idx" ON "refunds" USING btree ("payment_id","id");--> statement-breakpoint
CREATE INDEX "refunds_check_due_idx" ON "refunds" USING btree ("next_check_at") WHERE "refunds"."status" = 'pending';--> statement-breakpoint
CREATE INDEX "refunds_unsettled_idx" ON "refunds" USING btree ("merchant_id","livemode","currency") WHERE "refunds"."status" = 'succeeded' and "refunds"."settlement_id" is null;--> statement-breakpoint
CREATE INDEX "payment_links_list_idx" ON "payment_links" USING btree ("merchant_id","livemode","id");--> statement-breakpoint
CREATE UNIQUE INDEX "checkout_sessions_reference_key" ON "checkout_sessions" USING btree ("merchant_id","livemode","reference");--> statement-breakpoint
CREATE INDEX "checkout_sessions_list_idx" ON "checkout_sessions" USING btree ("merchant_id","livemode","id");--> statement-breakpoint
CREATE INDEX "settlements_list_idx" ON "settlements" USING btree ("merchant_id","livemode","id");--> statement-breakpoint
CREATE INDEX "settlements_payout_due_idx" ON "settlements" USING btree ("pay_after") WHERE "settlements"."status" = 'pending';--> statement-breakpoint
CREATE INDEX "payments_link_idx" ON "payments" USING btree ("payment_link_id","id") WHERE "payments"."payment_link_id" is not null;--> statement-breakpoint
CREATE INDEX "payments_checkout_session_idx" ON "payments" USING btree ("checkout_session_id","id") WHERE "payments"."checkout_session_id" is not null;--> statement-breakpoint
CREATE INDEX "payments_unsettled_idx" ON "payments" USING btree ("merchant_id","livemode","currency") WHERE "payments"."status" = 'succeeded' and "payments"."settlement_id" is null;--> statement-breakpoint
ALTER TABLE "payments" ADD CONSTRAINT "payments_refunds_within_amount" CHECK ("payments"."amount_refunded" between 0 and "payments"."amount");