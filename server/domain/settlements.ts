/** A batch waits for its payout (`pending`), then it was paid or the payout failed. */
export const SETTLEMENT_STATUSES = ["pending", "paid", "failed"] as const;
export type SettlementStatus = (typeof SETTLEMENT_STATUSES)[number];

/** What a settlement line carries: a payment adds to the batch, a refund takes away. */
export const SETTLEMENT_LINE_KINDS = ["payment", "refund"] as const;
export type SettlementLineKind = (typeof SETTLEMENT_LINE_KINDS)[number];

/** Test-mode batches are paid out this long after they are made (live ones wait for an operator). */
export const TEST_PAYOUT_DELAY_MS = 5_000;

/** Merchants' business day: settlements cut at midnight in Harare (UTC+2, no daylight saving). */
const BUSINESS_DAY_OFFSET_MS = 2 * 60 * 60 * 1000;
const DAY_MS = 24 * 60 * 60 * 1000;

/** The daily run's cutoff: the most recent Harare midnight at or before `now`. */
export function dailyCutoff(now: Date): Date {
  const local = now.getTime() + BUSINESS_DAY_OFFSET_MS;
  return new Date(local - (((local % DAY_MS) + DAY_MS) % DAY_MS) - BUSINESS_DAY_OFFSET_MS);
}

/** A payment or refund as a batch counts it. */
export type SettlementItem =
  | { kind: "payment"; amount: number; /** the fee the merchant bears: 0 when the customer pays it */ merchantFee: number }
  | { kind: "refund"; amount: number };

/** What one item adds to the payout: a payment its amount less the fee the merchant bears, a refund minus its amount. */
export function itemNet(item: SettlementItem): number {
  return item.kind === "payment" ? item.amount - item.merchantFee : -item.amount;
}

export type SettlementTotals = {
  grossAmount: number;
  feeTotal: number;
  refundTotal: number;
  amount: number;
  paymentCount: number;
  refundCount: number;
};

export function settlementTotals(items: readonly SettlementItem[]): SettlementTotals {
  const totals: SettlementTotals = { grossAmount: 0, feeTotal: 0, refundTotal: 0, amount: 0, paymentCount: 0, refundCount: 0 };
  for (const item of items) {
    if (item.kind === "payment") {
      totals.grossAmount += item.amount;
      totals.feeTotal += item.merchantFee;
      totals.paymentCount += 1;
    } else {
      totals.refundTotal += item.amount;
      totals.refundCount += 1;
    }
  }
  totals.amount = totals.grossAmount - totals.feeTotal - totals.refundTotal;
  return totals;
}
