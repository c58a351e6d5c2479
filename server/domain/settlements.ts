/** A batch waits for its payout (`pending`), then it was paid or the payout failed. */
export const SETTLEMENT_STATUSES = ["pending", "paid", "failed"] as const;
export type SettlementStatus = (typeof SETTLEMENT_STATUSES)[number];

/** What a settlement line carries: a payment adds to the batch, a refund takes away. */
export const SETTLEMENT_LINE_KINDS = ["payment", "refund"] as const;
export type SettlementLineKind = (typeof SETTLEMENT_LINE_KINDS)[number];
