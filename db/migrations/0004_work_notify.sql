-- Work that is due now (committed events waiting for the webhook relay, deliveries queued by a
-- replay) wakes every local runner listening on 'mari_work', whichever instance committed it.
-- Statement-level, and PostgreSQL folds identical notifications of a transaction into one.
CREATE OR REPLACE FUNCTION mari_notify_work() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('mari_work', TG_TABLE_NAME);
  RETURN NULL;
END
$$;
--> statement-breakpoint
CREATE TRIGGER outbox_notify_work AFTER INSERT ON "outbox" FOR EACH STATEMENT EXECUTE FUNCTION mari_notify_work();
--> statement-breakpoint
CREATE TRIGGER webhook_deliveries_notify_work AFTER INSERT ON "webhook_deliveries" FOR EACH STATEMENT EXECUTE FUNCTION mari_notify_work();
