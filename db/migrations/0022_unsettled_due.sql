-- Succeeded payments and refunds not yet in a batch, by when they succeeded: the settlement run
-- finds what is left before a cutoff without reading the day's newer items, so it can run again
-- every hour after midnight's and take up a day whose midnight run failed.
CREATE INDEX "payments_unsettled_due_idx" ON "payments" USING btree ("succeeded_at") WHERE "payments"."status" = 'succeeded' and "payments"."settlement_id" is null;--> statement-breakpoint
CREATE INDEX "refunds_unsettled_due_idx" ON "refunds" USING btree ("succeeded_at") WHERE "refunds"."status" = 'succeeded' and "refunds"."settlement_id" is null;