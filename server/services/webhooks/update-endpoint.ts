import { and, eq, isNull } from "drizzle-orm";
import { webhookEndpoints, type WebhookEndpoint } from "@/db/schema";
import { resourceMissing } from "@/server/domain/errors";
import type { ServiceContext } from "@/server/context";
import { vetEndpointUrl } from "./endpoint-url";
import { getEndpoint } from "./get-endpoint";

export type UpdateEndpointInput = {
  url?: string;
  enabledEvents?: string[];
  description?: string | null;
  metadata?: Record<string, string>;
  disabled?: boolean;
};

/**
 * Changes what is given. Disabling stops deliveries at their next attempt (they fail, saying so);
 * enabling resumes with new events, and a replay sends what was missed.
 */
export async function updateEndpoint(ctx: ServiceContext, id: string, input: UpdateEndpointInput): Promise<WebhookEndpoint> {
  await getEndpoint(ctx, id);
  const url = input.url === undefined ? undefined : await vetEndpointUrl(ctx, input.url);
  const [row] = await ctx.db
    .update(webhookEndpoints)
    .set({
      ...(url !== undefined ? { url } : {}),
      ...(input.enabledEvents !== undefined ? { enabledEvents: input.enabledEvents } : {}),
      ...(input.description !== undefined ? { description: input.description } : {}),
      ...(input.metadata !== undefined ? { metadata: input.metadata } : {}),
      ...(input.disabled !== undefined ? { status: input.disabled ? ("disabled" as const) : ("enabled" as const) } : {}),
      updatedAt: ctx.clock.now(),
    })
    .where(and(eq(webhookEndpoints.id, id), isNull(webhookEndpoints.deletedAt)))
    .returning();
  // Deleted between the read and the write.
  if (!row) throw resourceMissing("webhook endpoint", id);
  return row;
}
