-- pg_trgm serves the substring search on payment references (payments_reference_trgm_idx).
CREATE EXTENSION IF NOT EXISTS pg_trgm;
