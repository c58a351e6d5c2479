import { and, count, eq, isNull } from "drizzle-orm";
import { merchants, webhookEndpoints, type WebhookEndpoint } from "@/db/schema";
import { ServiceError } from "@/server/domain/errors";
import { newId } from "@/server/domain/ids";
import { MAX_ENDPOINTS, newWebhookSecret } from "@/server/domain/webhooks";
import type { ServiceContext } from "@/server/context";
import type { ResponseRecord } from "@/server/services/idempotency/completion";
import { writeWithResponse } from "@/server/services/idempotency/with-response";
import { recordSecurityEvent } from "@/server/services/security-log/record-security-event";
import { endpointEntry } from "./endpoint-security-entry";
import { vetEndpointUrl } from "./endpoint-url";

export type CreateEndpointInput = {
  url: string;
  enabledEvents: string[];
  description?: string;
  metadata?: Record<string, string>;
  /** The request's idempotency record: the endpoint and the answer showing its secret commit together. */
  response?: ResponseRecord<WebhookEndpoint>;
};

/** A new endpoint with a fresh signing secret; at most MAX_ENDPOINTS per merchant and environment. */
export async function createEndpoint(ctx: ServiceContext, input: CreateEndpointInput): Promise<WebhookEndpoint> {
  const url = await vetEndpointUrl(ctx, input.url);
  const now = ctx.clock.now();
  return writeWithResponse(ctx.db, input.response, async (tx) => {
    // The merchant row serialises concurrent creates, so the cap holds under races.
    await tx.select({ id: merchants.id }).from(merchants).where(eq(merchants.id, ctx.merchant.id)).for("update");
    const [existing] = await tx
      .select({ n: count() })
      .from(webhookEndpoints)
      .where(and(eq(webhookEndpoints.merchantId, ctx.merchant.id), eq(webhookEndpoints.livemode, ctx.livemode), isNull(webhookEndpoints.deletedAt)));
    if (existing!.n >= MAX_ENDPOINTS) {
      // No field is wrong: the request is fine, the account is full.
      throw new ServiceError("parameter_invalid", `You can have at most ${MAX_ENDPOINTS} webhook endpoints per environment. Delete one first.`);
    }
    const [row] = await tx
      .insert(webhookEndpoints)
      .values({
        id: newId("webhookEndpoint", now),
        merchantId: ctx.merchant.id,
        livemode: ctx.livemode,
        url,
        enabledEvents: input.enabledEvents,
        description: input.description ?? null,
        metadata: input.metadata ?? {},
        secret: newWebhookSecret(),
        createdAt: now,
        updatedAt: now,
      })
      .returning();
    await recordSecurityEvent(tx, ctx, endpointEntry(ctx, "webhook_endpoint.created", row!, { enabled_events: row!.enabledEvents }));
    return row!;
  });
}
