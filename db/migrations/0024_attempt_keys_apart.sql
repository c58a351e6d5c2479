-- A customer's attempt on a hosted page kept its key on its payment as "<origin id>:<attempt key>",
-- which a merchant's own Idempotency-Key (printable ASCII, no space) could also be, and the two
-- share the payments' unique index. Attempts are now kept as "<origin id> <attempt key>"
-- (attemptIdempotencyKey), which no Idempotency-Key can be; older attempts' keys move there, so a
-- page still finds the payment its browser's attempt made. Every payment through a link or a
-- session is an attempt: the API makes none.
UPDATE "payments"
SET "idempotency_key" = coalesce("payment_link_id", "checkout_session_id") || ' ' || substr("idempotency_key", length(coalesce("payment_link_id", "checkout_session_id")) + 2)
WHERE ("payment_link_id" IS NOT NULL OR "checkout_session_id" IS NOT NULL)
  AND left("idempotency_key", length(coalesce("payment_link_id", "checkout_session_id")) + 1) = coalesce("payment_link_id", "checkout_session_id") || ':';
