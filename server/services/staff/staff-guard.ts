import { and, count, eq, ne } from "drizzle-orm";
import type { Db } from "@/db/client";
import { merchants, staffUsers } from "@/db/schema";
import { invalidParam } from "@/server/domain/errors";

/**
 * Inside the transaction that demotes or removes `staffId`: locks the merchant's row (so two
 * admins demoting each other at once queue) and refuses when no other admin would remain.
 */
export async function keepAnAdmin(tx: Db, merchantId: string, staffId: string): Promise<void> {
  await tx.select({ id: merchants.id }).from(merchants).where(eq(merchants.id, merchantId)).for("update");
  const [others] = await tx
    .select({ n: count() })
    .from(staffUsers)
    .where(and(eq(staffUsers.merchantId, merchantId), eq(staffUsers.role, "admin"), ne(staffUsers.id, staffId)));
  if ((others?.n ?? 0) === 0) throw invalidParam("role", "Every merchant needs an admin: make someone else admin first.");
}
