import { DAY_MS, HARARE_OFFSET_MS } from "./harare-time";

/** A batch waits for its payout (`pending`), then it was paid or the payout failed. */
export const SETTLEMENT_STATUSES = ["pending", "paid", "failed"] as const;
export type SettlementStatus = (typeof SETTLEMENT_STATUSES)[number];

/** What a settlement line carries: a payment adds to the batch, a refund takes away. */
export const SETTLEMENT_LINE_KINDS = ["payment", "refund"] as const;
export type SettlementLineKind = (typeof SETTLEMENT_LINE_KINDS)[number];

/** Test-mode batches are paid out this long after they are made (live ones wait for an operator). */
export const TEST_PAYOUT_DELAY_MS = 5_000;

/** The daily run's cutoff: the most recent Harare midnight at or before `now`. */
export function dailyCutoff(now: Date): Date {
  const local = now.getTime() + HARARE_OFFSET_MS;
  return new Date(local - (((local % DAY_MS) + DAY_MS) % DAY_MS) - HARARE_OFFSET_MS);
}
