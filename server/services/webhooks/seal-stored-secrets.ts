import { desc, eq, sql } from "drizzle-orm";
import type { Db } from "@/db/client";
import { webhookEndpoints } from "@/db/schema";
import { dataKey } from "@/server/data-key";
import { unseal } from "@/server/domain/sealing";

/**
 * Seals signing secrets stored before sealing existed: drizzle reads them as they are and writes
 * them back sealed. Runs at start-up: one scan of the (small, at most 16 per merchant and
 * environment) endpoints table, its rows locked until they are written back, so a roll served by
 * another instance meanwhile is not undone by writing back what was read before it. Returns how
 * many endpoints it sealed.
 */
export async function sealStoredSecrets(db: Db): Promise<number> {
  return db.transaction(async (tx) => {
    const plain = await tx
      .select({ id: webhookEndpoints.id, secret: webhookEndpoints.secret, previousSecret: webhookEndpoints.previousSecret })
      .from(webhookEndpoints)
      .where(sql`${webhookEndpoints.secret} not like 'sealed:v1:%' or ${webhookEndpoints.previousSecret} not like 'sealed:v1:%'`)
      .for("update");
    for (const row of plain) {
      await tx.update(webhookEndpoints).set({ secret: row.secret, previousSecret: row.previousSecret }).where(eq(webhookEndpoints.id, row.id));
    }
    return plain.length;
  });
}

/**
 * Whether `key` opens the signing secrets already sealed in this database. All are sealed under
 * one key, so one is enough. With another key every read of an endpoint would fail, and every
 * webhook with it: start-up checks this first, before it seals anything under the wrong key.
 */
export async function dataKeyOpensStoredSecrets(db: Db, key: Buffer = dataKey()): Promise<boolean> {
  // As stored (a plain SQL column is not unsealed on the way out).
  const [row] = await db
    .select({ secret: sql<string>`${webhookEndpoints.secret}` })
    .from(webhookEndpoints)
    .where(sql`${webhookEndpoints.secret} like 'sealed:v1:%'`)
    // The newest: what the database is sealed with now, whatever an old mistake left behind.
    .orderBy(desc(webhookEndpoints.createdAt))
    .limit(1);
  if (!row) return true;
  try {
    unseal(key, row.secret);
    return true;
  } catch {
    return false;
  }
}
