import { deliverWebhookFn, relayEventsFn } from "./deliver-webhook";
import { expirePaymentFn } from "./expire-payment";
import { flagUnresolvedFn } from "./flag-unresolved";
import { reconcileUnknownFn } from "./reconcile-unknown";
import { advanceRefundFn } from "./advance-refund";
import { carryOnReplaysFn } from "./carry-on-replays";
import { payoutTestSettlementFn, settleDailyFn } from "./settlements";
import { sweepOverdueFn } from "./sweep-overdue";

export const functions = [
  expirePaymentFn,
  reconcileUnknownFn,
  flagUnresolvedFn,
  sweepOverdueFn,
  relayEventsFn,
  deliverWebhookFn,
  advanceRefundFn,
  settleDailyFn,
  payoutTestSettlementFn,
  carryOnReplaysFn,
];
