CREATE TABLE "payment_day_changes" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "payment_day_changes_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"merchant_id" text COLLATE "C" NOT NULL,
	"livemode" boolean NOT NULL,
	"day" integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE "payment_day_totals" (
	"merchant_id" text COLLATE "C" NOT NULL,
	"livemode" boolean NOT NULL,
	"day" integer NOT NULL,
	"buckets" jsonb NOT NULL,
	"computed_at" timestamp with time zone NOT NULL,
	CONSTRAINT "payment_day_totals_merchant_id_livemode_day_pk" PRIMARY KEY("merchant_id","livemode","day")
);
--> statement-breakpoint
CREATE INDEX "payment_day_changes_day_idx" ON "payment_day_changes" USING btree ("merchant_id","livemode","day");--> statement-breakpoint
-- The day number on the Harare calendar (UTC+2 all year, no summer time) of an instant: the
-- overview's own (server/services/overview/payment-days.ts), to the millisecond.
CREATE OR REPLACE FUNCTION mari_harare_day(at timestamptz) RETURNS integer LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT floor((extract(epoch FROM at) * 1000 + 7200000) / 86400000)::integer
$$;
--> statement-breakpoint
-- A payment of a day that is already over was written, changed or removed: the day's stored
-- totals no longer hold. The trigger's WHEN leaves out the usual write (a payment of today), so
-- only late changes cost a row here. clock_timestamp(), not now(): a transaction begun before
-- midnight that changes a payment after it still marks its day.
CREATE OR REPLACE FUNCTION mari_payment_day_changed() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  today integer := mari_harare_day(clock_timestamp());
BEGIN
  IF TG_OP <> 'INSERT' AND mari_harare_day(OLD.created_at) < today THEN
    INSERT INTO payment_day_changes (merchant_id, livemode, day) VALUES (OLD.merchant_id, OLD.livemode, mari_harare_day(OLD.created_at));
  END IF;
  IF TG_OP <> 'DELETE' AND mari_harare_day(NEW.created_at) < today
    AND (TG_OP = 'INSERT' OR (NEW.merchant_id, NEW.livemode, mari_harare_day(NEW.created_at)) IS DISTINCT FROM (OLD.merchant_id, OLD.livemode, mari_harare_day(OLD.created_at))) THEN
    INSERT INTO payment_day_changes (merchant_id, livemode, day) VALUES (NEW.merchant_id, NEW.livemode, mari_harare_day(NEW.created_at));
  END IF;
  RETURN NULL;
END
$$;
--> statement-breakpoint
CREATE TRIGGER payments_day_inserted AFTER INSERT ON "payments" FOR EACH ROW
  WHEN (mari_harare_day(NEW.created_at) < mari_harare_day(clock_timestamp()))
  EXECUTE FUNCTION mari_payment_day_changed();
--> statement-breakpoint
CREATE TRIGGER payments_day_updated AFTER UPDATE OF status, amount, amount_refunded, currency, created_at, merchant_id, livemode ON "payments" FOR EACH ROW
  WHEN ((OLD.status, OLD.amount, OLD.amount_refunded, OLD.currency, OLD.created_at, OLD.merchant_id, OLD.livemode)
      IS DISTINCT FROM (NEW.status, NEW.amount, NEW.amount_refunded, NEW.currency, NEW.created_at, NEW.merchant_id, NEW.livemode)
    AND least(mari_harare_day(OLD.created_at), mari_harare_day(NEW.created_at)) < mari_harare_day(clock_timestamp()))
  EXECUTE FUNCTION mari_payment_day_changed();
--> statement-breakpoint
CREATE TRIGGER payments_day_deleted AFTER DELETE ON "payments" FOR EACH ROW
  WHEN (mari_harare_day(OLD.created_at) < mari_harare_day(clock_timestamp()))
  EXECUTE FUNCTION mari_payment_day_changed();
