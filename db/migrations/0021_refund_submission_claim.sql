-- A refund's submissions are claimed one at a time (submitting_until) and counted before each is
-- sent (submit_attempts): past the first, a refusal is checked with the provider, since an earlier
-- one may have reached it unrecorded. Catalogue-only columns (a constant default, a null); a refund
-- still unsubmitted when this runs may have been sent already, so it counts one.
ALTER TABLE "refunds" ADD COLUMN "submit_attempts" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "refunds" ADD COLUMN "submitting_until" timestamp with time zone;--> statement-breakpoint
UPDATE "refunds" SET "submit_attempts" = 1 WHERE "status" = 'pending' AND "submitted_at" IS NULL;
