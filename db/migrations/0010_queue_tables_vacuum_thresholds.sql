-- outbox is a queue: every row is deleted minutes after its insert, so its live rows number a few
-- dozen while dead ones pile up behind the relay's reads. The default (vacuum at 20 % of the live
-- rows, plus 50) waits far too long for a table this size; vacuum it every 1,000 dead rows.
ALTER TABLE "outbox" SET (autovacuum_vacuum_scale_factor = 0, autovacuum_vacuum_threshold = 1000);--> statement-breakpoint
-- Each delivery is updated as it is claimed and again as each attempt is recorded; the claim reads
-- the pending ones through a partial index. Vacuum and analyze it at 2 % of its rows, not 20 %.
ALTER TABLE "webhook_deliveries" SET (autovacuum_vacuum_scale_factor = 0.02, autovacuum_analyze_scale_factor = 0.02);
