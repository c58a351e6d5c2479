import { and, eq, isNull } from "drizzle-orm";
import { webhookEndpoints, type WebhookEndpoint } from "@/db/schema";
import { resourceMissing } from "@/server/domain/errors";
import { isId } from "@/server/domain/ids";
import type { ServiceContext } from "@/server/context";
import type { Db } from "@/db/client";

/** This merchant's endpoint in this environment; deleted, foreign and unknown ones are all missing. */
export async function getEndpoint(ctx: ServiceContext, id: string, opts: { tx?: Db; forUpdate?: boolean; param?: string } = {}): Promise<WebhookEndpoint> {
  if (!isId("webhookEndpoint", id)) throw resourceMissing("webhook endpoint", id, opts.param);
  const query = (opts.tx ?? ctx.db)
    .select()
    .from(webhookEndpoints)
    .where(
      and(
        eq(webhookEndpoints.id, id),
        eq(webhookEndpoints.merchantId, ctx.merchant.id),
        eq(webhookEndpoints.livemode, ctx.livemode),
        isNull(webhookEndpoints.deletedAt),
      ),
    );
  const [row] = opts.forUpdate ? await query.for("update") : await query;
  if (!row) throw resourceMissing("webhook endpoint", id, opts.param);
  return row;
}
