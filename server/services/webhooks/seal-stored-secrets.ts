import { eq, sql } from "drizzle-orm";
import type { Db } from "@/db/client";
import { webhookEndpoints } from "@/db/schema";

/**
 * Seals signing secrets stored before sealing existed: drizzle reads them as they are and writes
 * them back sealed. Runs at start-up: one scan of the (small, at most 16 per merchant and
 * environment) endpoints table. Returns how many endpoints it sealed.
 */
export async function sealStoredSecrets(db: Db): Promise<number> {
  const plain = await db
    .select({ id: webhookEndpoints.id, secret: webhookEndpoints.secret, previousSecret: webhookEndpoints.previousSecret })
    .from(webhookEndpoints)
    .where(sql`${webhookEndpoints.secret} not like 'sealed:v1:%' or ${webhookEndpoints.previousSecret} not like 'sealed:v1:%'`);
  if (plain.length === 0) return 0;
  await db.transaction(async (tx) => {
    for (const row of plain) {
      await tx.update(webhookEndpoints).set({ secret: row.secret, previousSecret: row.previousSecret }).where(eq(webhookEndpoints.id, row.id));
    }
  });
  return plain.length;
}
