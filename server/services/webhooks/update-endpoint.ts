import { eq } from "drizzle-orm";
import { webhookEndpoints, type WebhookEndpoint } from "@/db/schema";
import { lockUntilCommit } from "@/db/transaction";
import { invalidParam } from "@/server/domain/errors";
import { mergeMetadata, METADATA_MAX_KEYS } from "@/server/domain/metadata";
import { changedFields } from "@/server/domain/security-log";
import type { ServiceContext } from "@/server/context";
import type { ResponseRecord } from "@/server/services/idempotency/completion";
import { writeWithResponse } from "@/server/services/idempotency/with-response";
import { recordSecurityEvent } from "@/server/services/security-log/record-security-event";
import { endpointEntry } from "./endpoint-security-entry";
import { vetEndpointUrl } from "./endpoint-url";
import { getEndpoint } from "./get-endpoint";
import { replayLock } from "./queue-replay";

export type UpdateEndpointInput = {
  url?: string;
  enabledEvents?: string[];
  description?: string | null;
  metadata?: Record<string, string>;
  disabled?: boolean;
};

/**
 * Changes what is given; `metadata` is merged into what the endpoint has (mergeMetadata). Disabling stops deliveries at their next attempt (they fail, saying so);
 * enabling resumes with new events, and a replay sends what was missed. With `response`, the answer
 * is stored with the change: a retry after a failure that followed it answers it again rather than
 * applying it over a change made since.
 */
export async function updateEndpoint(ctx: ServiceContext, id: string, input: UpdateEndpointInput, response?: ResponseRecord<WebhookEndpoint>): Promise<WebhookEndpoint> {
  await getEndpoint(ctx, id);
  const url = input.url === undefined ? undefined : await vetEndpointUrl(ctx, input.url);
  const status = input.disabled === undefined ? undefined : input.disabled ? ("disabled" as const) : ("enabled" as const);
  return writeWithResponse(ctx.db, response, async (tx) => {
    // Disabling waits for a replay being queued; one after it sees the endpoint disabled (queueReplay).
    if (status === "disabled") await lockUntilCommit(tx, replayLock(ctx.merchant.id, ctx.livemode));
    // Deleted since the first read: missing. Locked, so the log's "from" is what was changed.
    const before = await getEndpoint(ctx, id, { tx, forUpdate: true });
    const metadata = input.metadata === undefined ? undefined : mergeMetadata(before.metadata, input.metadata);
    if (metadata === null) throw invalidParam("metadata", `metadata may hold at most ${METADATA_MAX_KEYS} keys, counting those the endpoint already has (send a key as "" to remove it).`);
    const [row] = await tx
      .update(webhookEndpoints)
      .set({
        ...(url !== undefined ? { url } : {}),
        ...(input.enabledEvents !== undefined ? { enabledEvents: input.enabledEvents } : {}),
        ...(input.description !== undefined ? { description: input.description } : {}),
        ...(metadata !== undefined ? { metadata } : {}),
        ...(status !== undefined ? { status } : {}),
        updatedAt: ctx.clock.now(),
      })
      .where(eq(webhookEndpoints.id, id))
      .returning();
    // Where deliveries go and what they carry is the log's business; a description is not.
    const changed = changedFields(
      { url: before.url, enabled_events: before.enabledEvents, status: before.status },
      { url: row!.url, enabled_events: row!.enabledEvents, status: row!.status },
    );
    if (Object.keys(changed).length > 0) await recordSecurityEvent(tx, ctx, endpointEntry(ctx, "webhook_endpoint.updated", row!, changed));
    return row!;
  });
}
