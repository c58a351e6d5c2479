import { and, eq, isNull } from "drizzle-orm";
import { apiKeys, type ApiKey } from "@/db/schema";
import { resourceMissing } from "@/server/domain/errors";
import type { BaseContext } from "@/server/context";
import { forgetApiKey } from "./authenticate-api-key";

/** Revocation is immediate and permanent; revoking twice is harmless. */
export async function revokeApiKey(ctx: BaseContext & { merchant: { id: string } }, keyId: string): Promise<ApiKey> {
  const now = ctx.clock.now();
  const [revoked] = await ctx.db
    .update(apiKeys)
    .set({ revokedAt: now })
    .where(and(eq(apiKeys.id, keyId), eq(apiKeys.merchantId, ctx.merchant.id), isNull(apiKeys.revokedAt)))
    .returning();
  if (revoked) {
    forgetApiKey(revoked.hash);
    return revoked;
  }
  const [existing] = await ctx.db
    .select()
    .from(apiKeys)
    .where(and(eq(apiKeys.id, keyId), eq(apiKeys.merchantId, ctx.merchant.id)));
  if (!existing) throw resourceMissing("API key", keyId);
  return existing;
}
