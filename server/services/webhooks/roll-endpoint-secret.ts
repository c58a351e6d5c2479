import { eq } from "drizzle-orm";
import { webhookEndpoints, type WebhookEndpoint } from "@/db/schema";
import { newWebhookSecret, ROLLED_SECRET_OVERLAP_MS } from "@/server/domain/webhooks";
import type { ServiceContext } from "@/server/context";
import type { ResponseRecord } from "@/server/services/idempotency/completion";
import { writeWithResponse } from "@/server/services/idempotency/with-response";
import { recordSecurityEvent } from "@/server/services/security-log/record-security-event";
import { endpointEntry } from "./endpoint-security-entry";
import { getEndpoint } from "./get-endpoint";

/**
 * A new signing secret. The old one keeps signing alongside it for 24 h (two `v1=` per delivery),
 * so the merchant can deploy the new secret without dropping a webhook.
 */
export async function rollEndpointSecret(ctx: ServiceContext, id: string, response?: ResponseRecord<WebhookEndpoint>): Promise<WebhookEndpoint> {
  // With the request's idempotency record, the new secret and the answer showing it commit together.
  return writeWithResponse(ctx.db, response, async (tx) => {
    const current = await getEndpoint(ctx, id, { tx, forUpdate: true });
    const now = ctx.clock.now();
    const [row] = await tx
      .update(webhookEndpoints)
      .set({
        secret: newWebhookSecret(),
        previousSecret: current.secret,
        previousSecretExpiresAt: new Date(now.getTime() + ROLLED_SECRET_OVERLAP_MS),
        updatedAt: now,
      })
      .where(eq(webhookEndpoints.id, id))
      .returning();
    await recordSecurityEvent(tx, ctx, endpointEntry(ctx, "webhook_endpoint.secret_rolled", row!));
    return row!;
  });
}
