DROP INDEX "outbox_pending_idx";--> statement-breakpoint
CREATE INDEX "outbox_created_idx" ON "outbox" USING btree ("created_at");--> statement-breakpoint
ALTER TABLE "outbox" DROP COLUMN "relayed_at";--> statement-breakpoint
ALTER TABLE "outbox" DROP COLUMN "attempts";