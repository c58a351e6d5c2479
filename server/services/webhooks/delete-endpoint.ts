import { eq } from "drizzle-orm";
import { webhookEndpoints } from "@/db/schema";
import type { ServiceContext } from "@/server/context";
import { getEndpoint } from "./get-endpoint";

/** Hidden from then on and sent nothing more; its past deliveries stay readable through their events. */
export async function deleteEndpoint(ctx: ServiceContext, id: string): Promise<{ id: string }> {
  await getEndpoint(ctx, id);
  const now = ctx.clock.now();
  await ctx.db.update(webhookEndpoints).set({ deletedAt: now, status: "disabled", updatedAt: now }).where(eq(webhookEndpoints.id, id));
  return { id };
}
