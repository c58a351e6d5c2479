import { and, eq, sql } from "drizzle-orm";
import { events, webhookAttempts, webhookDeliveries, webhookEndpoints, type WebhookDelivery } from "@/db/schema";
import type { BaseContext } from "@/server/context";
import { newId } from "@/server/domain/ids";
import { signatureHeader } from "@/server/domain/signatures";
import { DEGRADED_AFTER_FAILURES, nextAttemptAt, signingSecrets } from "@/server/domain/webhooks";
import { toEventResource } from "@/server/schemas/events";
import type { WebhookPostResult } from "@/server/webhooks/post-webhook";

/** Sends one signed POST and reports what happened; never throws. */
export type WebhookSender = { post(url: string, body: string, headers: Record<string, string>): Promise<WebhookPostResult> };

export type DeliveryContext = BaseContext & { webhooks: WebhookSender };

export const SIGNATURE_HEADER = "Service-Signature";

/**
 * One attempt of one delivery, by a worker that holds its lease (see claimDueDeliveries): POST the
 * event, signed with every current secret of the endpoint, then record the attempt, move the
 * delivery (delivered, retry at the next time of the schedule, or failed for good) and the
 * endpoint's health, in one transaction. The move is a compare-and-set on the attempt count, so
 * a worker whose lease ran out and was overtaken records its attempt but changes nothing else.
 */
export async function attemptDelivery(ctx: DeliveryContext, deliveryId: string): Promise<WebhookDelivery | null> {
  const [found] = await ctx.db
    .select({ delivery: webhookDeliveries, endpoint: webhookEndpoints, event: events })
    .from(webhookDeliveries)
    .innerJoin(webhookEndpoints, eq(webhookEndpoints.id, webhookDeliveries.endpointId))
    .innerJoin(events, eq(events.id, webhookDeliveries.eventId))
    .where(eq(webhookDeliveries.id, deliveryId));
  if (!found) return null;
  const { delivery, endpoint, event } = found;
  if (delivery.status !== "pending") return delivery;

  const attemptedAt = ctx.clock.now();
  let result: WebhookPostResult;
  let counts = true;
  if (endpoint.status !== "enabled" || endpoint.deletedAt) {
    // Nothing is sent to a disabled or deleted endpoint; the attempt says why, and a replay can resend.
    result = { ok: false, statusCode: null, latencyMs: 0, error: `not sent: the endpoint is ${endpoint.deletedAt ? "deleted" : "disabled"}`, responseBody: "" };
    counts = false;
  } else {
    const body = JSON.stringify(toEventResource(event));
    const t = Math.floor(attemptedAt.getTime() / 1000);
    result = await ctx.webhooks.post(endpoint.url, body, {
      "Content-Type": "application/json",
      [SIGNATURE_HEADER]: signatureHeader(signingSecrets(endpoint, attemptedAt), t, body),
    });
  }

  const attempts = delivery.attemptCount + 1;
  const firstAttemptAt = delivery.firstAttemptAt ?? attemptedAt;
  const retryAt = result.ok || !counts ? null : nextAttemptAt(firstAttemptAt, attempts, attemptedAt);
  const status = result.ok ? "delivered" : retryAt ? "pending" : "failed";

  return ctx.db.transaction(async (tx) => {
    await tx.insert(webhookAttempts).values({
      id: newId("webhookAttempt", attemptedAt),
      deliveryId,
      attemptedAt,
      statusCode: result.statusCode,
      latencyMs: Math.round(result.latencyMs),
      error: result.error,
      responseBody: result.responseBody,
    });
    const [moved] = await tx
      .update(webhookDeliveries)
      .set({
        status,
        attemptCount: attempts,
        firstAttemptAt,
        lastAttemptAt: attemptedAt,
        nextAttemptAt: retryAt,
        deliveredAt: result.ok ? attemptedAt : null,
      })
      .where(and(eq(webhookDeliveries.id, deliveryId), eq(webhookDeliveries.status, "pending"), eq(webhookDeliveries.attemptCount, delivery.attemptCount)))
      .returning();
    if (!moved) {
      const [current] = await tx.select().from(webhookDeliveries).where(eq(webhookDeliveries.id, deliveryId));
      return current ?? null;
    }
    if (counts) {
      await tx
        .update(webhookEndpoints)
        .set(
          result.ok
            ? { consecutiveFailures: 0, degradedSince: null }
            : {
                consecutiveFailures: sql`${webhookEndpoints.consecutiveFailures} + 1`,
                degradedSince: sql`case when ${webhookEndpoints.consecutiveFailures} + 1 >= ${DEGRADED_AFTER_FAILURES}
                  then coalesce(${webhookEndpoints.degradedSince}, ${attemptedAt.toISOString()}::timestamptz) else ${webhookEndpoints.degradedSince} end`,
              },
        )
        .where(eq(webhookEndpoints.id, endpoint.id));
    }
    return moved;
  });
}
