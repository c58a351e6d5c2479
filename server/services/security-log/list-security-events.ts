import { and, eq } from "drizzle-orm";
import { securityEvents, type SecurityEvent } from "@/db/schema";
import { resourceMissing } from "@/server/domain/errors";
import type { ServiceContext } from "@/server/context";
import { cursorParam, keyset, keysetValues, type Page, type PageRequest } from "../pagination";

/**
 * The merchant's security log, newest first, both environments together (a key or an endpoint
 * entry says which it was of), in keyset pages over security_events_merchant_idx. A cursor that
 * is not one of this merchant's entries is missing, as any other id.
 */
export async function listSecurityEvents(ctx: ServiceContext, page: PageRequest): Promise<Page<SecurityEvent>> {
  const mine = eq(securityEvents.merchantId, ctx.merchant.id);
  const q = keyset(securityEvents.id, page, mine, [securityEvents.merchantId]);
  const { cursor } = keysetValues(page);
  if (cursor !== undefined) {
    const [found] = await ctx.db.select({ id: securityEvents.id }).from(securityEvents).where(and(eq(securityEvents.id, cursor), mine));
    if (!found) throw resourceMissing("security log entry", cursor, cursorParam(page));
  }
  const rows = await ctx.db.select().from(securityEvents).where(q.where).orderBy(...q.orderBy).limit(q.limit);
  return q.finish(rows);
}
