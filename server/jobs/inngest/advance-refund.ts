import { REFUND_CHECK_DELAYS_S } from "@/server/domain/refund-schedule";
import { advanceRefund } from "@/server/services/refunds/advance-refund";
import { inngest, refundCreated } from "./client";
import { jobDeps } from "./deps";

/**
 * Runs of the schedule one function follows; a refund still pending after them (its checks then
 * an hour apart) is left to sweep-overdue, which claims it when it is overdue.
 */
export const ADVANCE_REFUND_STEPS = REFUND_CHECK_DELAYS_S.length + 3;

/**
 * refund/created → sleep until the refund's `next_check_at` → the due-work verb (submit, or ask
 * the provider) → sleep until the next time it set, until the refund is final.
 */
export const advanceRefundFn = inngest.createFunction(
  { id: "advance-refund", triggers: [refundCreated], retries: 10 },
  async ({ event, step }) => {
    let dueAt = event.data.due_at;
    for (let i = 0; i < ADVANCE_REFUND_STEPS; i++) {
      await step.sleepUntil(`wait-${i}`, dueAt);
      const refund = await step.run(`advance-${i}`, async () => {
        const r = await advanceRefund(await jobDeps(), event.data.refund_id);
        return { status: r?.status ?? "missing", nextCheckAt: r?.nextCheckAt?.toISOString() ?? null };
      });
      if (refund.status !== "pending" || !refund.nextCheckAt) return { status: refund.status, steps: i + 1 };
      dueAt = refund.nextCheckAt;
    }
    return { status: "pending", steps: ADVANCE_REFUND_STEPS };
  },
);
