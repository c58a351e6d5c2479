-- The reference keys of payments and checkout sessions, led by the reference instead of the
-- merchant. Led by the merchant, each is shallower than its table's list index (a reference is
-- shorter than an id), and for a merchant that grew after the table was last analysed (one row to
-- the planner) a list would read it and sort every row of the merchant for each page. Same
-- uniqueness, same names: the new index is built beside the old one, which then goes.
CREATE UNIQUE INDEX "payments_reference_key_new" ON "payments" USING btree ("reference","merchant_id","livemode");--> statement-breakpoint
DROP INDEX "payments_reference_key";--> statement-breakpoint
ALTER INDEX "payments_reference_key_new" RENAME TO "payments_reference_key";--> statement-breakpoint
CREATE UNIQUE INDEX "checkout_sessions_reference_key_new" ON "checkout_sessions" USING btree ("reference","merchant_id","livemode");--> statement-breakpoint
DROP INDEX "checkout_sessions_reference_key";--> statement-breakpoint
ALTER INDEX "checkout_sessions_reference_key_new" RENAME TO "checkout_sessions_reference_key";
