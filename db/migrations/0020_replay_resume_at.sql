-- A replay that brings a scheduled retry forward remembers it (resume_at), and counts apart from the
-- schedule's steps (replayed_attempts): a failed replayed attempt goes back to the schedule as it was.
-- Both are catalogue-only changes (a constant default): no rewrite of the table.
ALTER TABLE "webhook_deliveries" ADD COLUMN "resume_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "webhook_deliveries" ADD COLUMN "replayed_attempts" smallint DEFAULT 0 NOT NULL;