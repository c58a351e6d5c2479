import { and, eq, isNull } from "drizzle-orm";
import { webhookEndpoints, type WebhookEndpoint } from "@/db/schema";
import type { ServiceContext } from "@/server/context";
import { keyset, withOwnedCursor, type Page, type PageRequest } from "../pagination";

export async function listEndpoints(ctx: ServiceContext, page: PageRequest): Promise<Page<WebhookEndpoint>> {
  const where = and(eq(webhookEndpoints.merchantId, ctx.merchant.id), eq(webhookEndpoints.livemode, ctx.livemode), isNull(webhookEndpoints.deletedAt));
  const q = keyset(webhookEndpoints.id, page, where, [webhookEndpoints.merchantId, webhookEndpoints.livemode]);
  // A deleted endpoint is still ours: a cursor naming one (deleted between two pages) pages on.
  const own = { what: "webhook endpoint", table: webhookEndpoints, id: webhookEndpoints.id, merchantId: webhookEndpoints.merchantId, livemode: webhookEndpoints.livemode };
  return q.finish(await withOwnedCursor(ctx, page, own, (owned) => ctx.db.select().from(webhookEndpoints).where(and(q.where, owned)).orderBy(...q.orderBy).limit(q.limit)));
}
