-- Each attempt keeps its delivery's endpoint, so that the dashboard's stats of an endpoint's last
-- day (endpointAttemptStats) are read from one index, status codes included, instead of joining
-- every delivery of the day to its attempts. Existing attempts take their delivery's endpoint.
ALTER TABLE "webhook_attempts" ADD COLUMN "endpoint_id" text COLLATE "C";--> statement-breakpoint
UPDATE "webhook_attempts" a SET "endpoint_id" = d."endpoint_id" FROM "webhook_deliveries" d WHERE d."id" = a."delivery_id";--> statement-breakpoint
ALTER TABLE "webhook_attempts" ALTER COLUMN "endpoint_id" SET NOT NULL;--> statement-breakpoint
-- INCLUDE, which the schema cannot say: the status code is read from the index too. An attempt of
-- a disabled endpoint is recorded with an error beginning "not sent:" (NOT_SENT) and is not the
-- receiver's: left out.
CREATE INDEX "webhook_attempts_endpoint_idx" ON "webhook_attempts" USING btree ("endpoint_id","attempted_at") INCLUDE ("status_code") WHERE "webhook_attempts"."error" is null or "webhook_attempts"."error" not like 'not sent:%';--> statement-breakpoint
-- The failed ones alone, for the last failure: an endpoint with none in the window is answered at
-- once instead of by reading back through all it did in it.
CREATE INDEX "webhook_attempts_endpoint_failed_idx" ON "webhook_attempts" USING btree ("endpoint_id","attempted_at") WHERE ("webhook_attempts"."error" is null or "webhook_attempts"."error" not like 'not sent:%') and ("webhook_attempts"."status_code" is null or "webhook_attempts"."status_code" not between 200 and 299);
