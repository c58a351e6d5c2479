-- Failed deliveries of a merchant, newest first: GET /v1/webhook_deliveries?status=failed reads
-- them alone instead of walking every delivery of the merchant to find the few that failed.
CREATE INDEX "webhook_deliveries_failed_idx" ON "webhook_deliveries" USING btree ("merchant_id","livemode","id") WHERE "webhook_deliveries"."status" = 'failed';
