-- A merchant's reference names one order: unique across its payments and its checkout sessions
-- (per environment), as the unique indexes make it within each table. A session's own attempts
-- (payments with checkout_session_id) carry `reference#n` and are exempt. An advisory lock taken
-- by the reference makes a payment and a session inserted at the same moment queue, so the second
-- sees the first once it commits. The violation names the other table's unique constraint, so callers
-- say which kind of object holds the reference.
CREATE OR REPLACE FUNCTION mari_reference_free() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  -- Nested: NEW has no checkout_session_id on checkout_sessions, and plpgsql does not short-circuit.
  IF TG_TABLE_NAME = 'payments' THEN
    IF NEW.checkout_session_id IS NOT NULL THEN
      RETURN NEW;
    END IF;
  END IF;
  -- One of 1,024 locks, by the reference's hash: a bulk insert of many payments in one
  -- transaction holds at most 1,024 locks (one each would exhaust the lock table), and two
  -- unrelated references share a lock only briefly and rarely.
  PERFORM pg_advisory_xact_lock(1835102825, hashtext(NEW.merchant_id || ':' || NEW.livemode::text || ':' || NEW.reference) & 1023);
  IF TG_TABLE_NAME = 'payments' THEN
    IF EXISTS (SELECT 1 FROM checkout_sessions s WHERE s.merchant_id = NEW.merchant_id AND s.livemode = NEW.livemode AND s.reference = NEW.reference) THEN
      RAISE EXCEPTION 'reference % is held by a checkout session', NEW.reference
        USING ERRCODE = 'unique_violation', CONSTRAINT = 'checkout_sessions_reference_key';
    END IF;
  ELSIF EXISTS (SELECT 1 FROM payments p WHERE p.merchant_id = NEW.merchant_id AND p.livemode = NEW.livemode AND p.reference = NEW.reference) THEN
    RAISE EXCEPTION 'reference % is held by a payment', NEW.reference
      USING ERRCODE = 'unique_violation', CONSTRAINT = 'payments_reference_key';
  END IF;
  RETURN NEW;
END
$$;
--> statement-breakpoint
CREATE TRIGGER payments_reference_free BEFORE INSERT ON "payments" FOR EACH ROW EXECUTE FUNCTION mari_reference_free();
--> statement-breakpoint
CREATE TRIGGER checkout_sessions_reference_free BEFORE INSERT ON "checkout_sessions" FOR EACH ROW EXECUTE FUNCTION mari_reference_free();
