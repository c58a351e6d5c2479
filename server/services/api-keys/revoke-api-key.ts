import { and, eq, isNull } from "drizzle-orm";
import { apiKeys, type ApiKey } from "@/db/schema";
import { keyLabel } from "@/server/domain/api-keys";
import { resourceMissing } from "@/server/domain/errors";
import { recordSecurityEvent, type SecurityContext } from "@/server/services/security-log/record-security-event";
import { forgetApiKey } from "./authenticate-api-key";

/**
 * Revocation is immediate and permanent; revoking twice is harmless (and recorded in the security
 * log once). With `livemode` (the dashboard's switch) a key of the other environment is as
 * missing as one that never existed.
 */
export async function revokeApiKey(ctx: SecurityContext & { merchant: { id: string }; livemode?: boolean }, keyId: string): Promise<ApiKey> {
  const now = ctx.clock.now();
  const inScope = and(eq(apiKeys.merchantId, ctx.merchant.id), ctx.livemode === undefined ? undefined : eq(apiKeys.livemode, ctx.livemode));
  const revoked = await ctx.db.transaction(async (tx) => {
    const [row] = await tx
      .update(apiKeys)
      .set({ revokedAt: now })
      .where(and(eq(apiKeys.id, keyId), inScope, isNull(apiKeys.revokedAt)))
      .returning();
    if (row) await recordSecurityEvent(tx, ctx, { merchantId: row.merchantId, action: "api_key.revoked", livemode: row.livemode, target: { id: row.id, label: keyLabel(row) } });
    return row;
  });
  if (revoked) {
    forgetApiKey(revoked.hash);
    return revoked;
  }
  const [existing] = await ctx.db
    .select()
    .from(apiKeys)
    .where(and(eq(apiKeys.id, keyId), inScope));
  if (!existing) throw resourceMissing("API key", keyId);
  return existing;
}
