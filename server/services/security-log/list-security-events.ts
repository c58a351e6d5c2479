import { and, eq, type SQL } from "drizzle-orm";
import { securityEvents, type SecurityEvent } from "@/db/schema";
import type { ServiceContext } from "@/server/context";
import { keyset, withOwnedCursor, type Page, type PageRequest } from "../pagination";

/**
 * The merchant's security log, newest first, both environments together (a key or an endpoint
 * entry says which it was of), in keyset pages over security_events_merchant_idx. A cursor that
 * is not one of this merchant's entries is missing, as any other id (withOwnedCursor).
 */
export async function listSecurityEvents(ctx: ServiceContext, page: PageRequest): Promise<Page<SecurityEvent>> {
  const q = keyset(securityEvents.id, page, eq(securityEvents.merchantId, ctx.merchant.id), [securityEvents.merchantId]);
  const own = { what: "security log entry", table: securityEvents, id: securityEvents.id, merchantId: securityEvents.merchantId };
  const read = (owned: SQL | undefined) =>
    ctx.db
      .select()
      .from(securityEvents)
      .where(and(q.where, owned))
      .orderBy(...q.orderBy)
      .limit(q.limit);
  return q.finish(await withOwnedCursor(ctx, page, own, read));
}
