DROP INDEX "staff_users_email_key";--> statement-breakpoint
CREATE UNIQUE INDEX "staff_users_merchant_email_key" ON "staff_users" USING btree ("merchant_id",lower("email"));