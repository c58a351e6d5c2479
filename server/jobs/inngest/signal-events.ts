import type { JobSignal } from "@/server/services/job-signals";
import { eventsRecorded, paymentCreated, paymentUnknown, refundCreated, replayHandedBack, scheduleDelivery, settlementCreated } from "./client";

/**
 * The Inngest events a job signal sends, each with the id Inngest deduplicates it by: a signal sent
 * twice starts one run.
 */
export function signalEvents(signal: JobSignal) {
  switch (signal.type) {
    case "payment.created":
      return [paymentCreated.create({ payment_id: signal.paymentId, expires_at: signal.expiresAt.toISOString() }, { id: signal.paymentId })];
    case "payment.unknown":
      return [
        paymentUnknown.create(
          { payment_id: signal.paymentId, unknown_since: signal.unknownSince.toISOString() },
          { id: `${signal.paymentId}:unknown:${signal.unknownSince.getTime()}` },
        ),
      ];
    case "refund.created":
      return [refundCreated.create({ refund_id: signal.refundId, due_at: signal.dueAt.toISOString() }, { id: signal.refundId })];
    case "events.recorded":
      return [eventsRecorded.create({ event_ids: signal.eventIds }, { id: signal.eventIds[0]! })];
    case "webhooks.queued":
      // One run per delivery and due time: a retry brought forward starts a run of its own
      // (the sleeping one finds it delivered, or claims only a later time).
      return signal.deliveries.map((d) => scheduleDelivery(d, `${d.id}:${signal.at.getTime()}`));
    case "replay.handed-back":
      // Each hand-back (a cursor further on) starts a run of its own.
      return [replayHandedBack.create({ replay_id: signal.replayId }, { id: `${signal.replayId}:${signal.afterEventId ?? "start"}` })];
    case "settlements.created":
      return signal.settlements.flatMap((s) => (s.payAfter ? [settlementCreated.create({ settlement_id: s.id, pay_after: s.payAfter.toISOString() }, { id: s.id })] : []));
  }
}
