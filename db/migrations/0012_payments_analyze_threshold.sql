-- A merchant the statistics have not seen is one row to the planner, and a search of its payments
-- then reads every payment it has (the list index with a filter) instead of the trigram index. The
-- default analyzes a table after changes to 10 % of its rows (100,000 of a million payments);
-- analyze payments after 1 % plus 1,000, so that a merchant that grows fast is in the statistics
-- within minutes. ANALYZE reads a sample of fixed size, whatever the table's.
ALTER TABLE "payments" SET (autovacuum_analyze_scale_factor = 0.01, autovacuum_analyze_threshold = 1000);
