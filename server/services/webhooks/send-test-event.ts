import { events, webhookDeliveries, type EventRow, type WebhookDelivery } from "@/db/schema";
import type { ServiceContext } from "@/server/context";
import { invalidParam } from "@/server/domain/errors";
import { TEST_EVENT_TYPE } from "@/server/domain/events";
import { newId } from "@/server/domain/ids";
import { toEndpointResource } from "@/server/schemas/webhooks";
import { signalJobs } from "@/server/services/job-signals";
import { getEndpoint } from "./get-endpoint";

/**
 * A `webhook_endpoint.test` event and one delivery of it to this endpoint alone. The event is
 * written without an outbox row, so the fan-out never sees it, and no subscription (not even
 * `*`) wants it, so a replay to all endpoints skips it. The delivery goes out like any other:
 * signed with the endpoint's secrets, retried on the schedule, its attempts on the endpoint's page.
 * The event's object is the endpoint as the API shows it (never its secret).
 */
export async function sendTestEvent(ctx: ServiceContext, endpointId: string): Promise<{ event: EventRow; delivery: WebhookDelivery }> {
  const endpoint = await getEndpoint(ctx, endpointId);
  if (endpoint.status !== "enabled") throw invalidParam("endpoint", `Webhook endpoint '${endpointId}' is disabled. Enable it before sending a test event.`);
  const now = ctx.clock.now();
  const result = await ctx.db.transaction(async (tx) => {
    const [event] = await tx
      .insert(events)
      .values({
        id: newId("event", now),
        merchantId: ctx.merchant.id,
        livemode: ctx.livemode,
        type: TEST_EVENT_TYPE,
        objectId: endpoint.id,
        data: { object: toEndpointResource(endpoint, { now }) },
        createdAt: now,
      })
      .returning();
    const [delivery] = await tx
      .insert(webhookDeliveries)
      .values({
        id: newId("webhookDelivery", now),
        merchantId: ctx.merchant.id,
        livemode: ctx.livemode,
        eventId: event!.id,
        endpointId: endpoint.id,
        reason: "event",
        nextAttemptAt: now,
        createdAt: now,
      })
      .returning();
    return { event: event!, delivery: delivery! };
  });
  signalJobs({ type: "webhooks.queued", deliveries: [{ id: result.delivery.id, endpointId: result.delivery.endpointId }], at: now });
  return result;
}
