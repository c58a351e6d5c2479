import { eq } from "drizzle-orm";
import { webhookEndpoints } from "@/db/schema";
import { lockUntilCommit } from "@/db/transaction";
import type { ServiceContext } from "@/server/context";
import type { ResponseRecord } from "@/server/services/idempotency/completion";
import { writeWithResponse } from "@/server/services/idempotency/with-response";
import { recordSecurityEvent } from "@/server/services/security-log/record-security-event";
import { endpointEntry } from "./endpoint-security-entry";
import { getEndpoint } from "./get-endpoint";
import { replayLock } from "./queue-replay";

/**
 * Hidden from then on and sent nothing more; its past deliveries stay readable through their events.
 * With `response`, the answer is stored with the delete: a retry after a failure that followed the
 * delete answers it again rather than finding the endpoint gone.
 */
export async function deleteEndpoint(ctx: ServiceContext, id: string, response?: ResponseRecord<{ id: string }>): Promise<{ id: string }> {
  const now = ctx.clock.now();
  return writeWithResponse(ctx.db, response, async (tx) => {
    // A replay being queued finishes first, and one after it sees the endpoint gone (queueReplay).
    await lockUntilCommit(tx, replayLock(ctx.merchant.id, ctx.livemode));
    // Of two deletes at once, the second finds it gone: missing, and recorded once.
    const endpoint = await getEndpoint(ctx, id, { tx, forUpdate: true });
    await tx.update(webhookEndpoints).set({ deletedAt: now, status: "disabled", updatedAt: now }).where(eq(webhookEndpoints.id, id));
    await recordSecurityEvent(tx, ctx, endpointEntry(ctx, "webhook_endpoint.deleted", endpoint));
    return { id };
  });
}
