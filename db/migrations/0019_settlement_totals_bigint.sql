-- A day of a merchant's payments passes 2^31 minor units (ZWG 21.5 million): batch totals are bigint.
-- One statement, so the table is rewritten once.
ALTER TABLE "settlements"
  ALTER COLUMN "amount" SET DATA TYPE bigint,
  ALTER COLUMN "gross_amount" SET DATA TYPE bigint,
  ALTER COLUMN "fee_total" SET DATA TYPE bigint,
  ALTER COLUMN "refund_total" SET DATA TYPE bigint;
