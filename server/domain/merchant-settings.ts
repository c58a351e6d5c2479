/** Bounds of a merchant's payment expiry: the database's `merchants_expiry_range` check. */
export const PAYMENT_EXPIRY_MIN_SECONDS = 30;
export const PAYMENT_EXPIRY_MAX_SECONDS = 3600;
