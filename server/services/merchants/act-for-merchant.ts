import { eq } from "drizzle-orm";
import { merchants } from "@/db/schema";
import type { Actor, CustomerContext, ServiceContext } from "@/server/context";

/**
 * The context for acting in one merchant's environment without an API key: a customer paying on
 * a link's or a session's page acts in the world of the object they opened, and nowhere else.
 */
export async function actForMerchant(
  base: CustomerContext,
  owner: { merchantId: string; livemode: boolean },
  actor: Actor,
): Promise<ServiceContext> {
  const [merchant] = await base.db.select().from(merchants).where(eq(merchants.id, owner.merchantId));
  if (!merchant) throw new Error(`merchant ${owner.merchantId} of a stored object is missing`);
  return { db: base.db, clock: base.clock, providers: base.providers, merchant, livemode: owner.livemode, actor, clientAddress: base.clientAddress ?? null };
}
