import { eq, sql } from "drizzle-orm";
import { endedSessions, merchants, staffUsers, type Merchant, type StaffUser } from "@/db/schema";
import type { BaseContext } from "@/server/context";

export type StaffSession = { staff: Omit<StaffUser, "passwordHash">; merchant: Merchant };

/**
 * The signed-in staff member and their merchant, read on every dashboard request: a removed
 * user, a changed role or a session signed out of takes effect at once, whatever the cookie says.
 */
export async function loadStaffSession(base: BaseContext, staffId: string, sessionId: string): Promise<StaffSession | null> {
  // In the same read: whether this session was signed out of (endStaffSession).
  const ended = sql<boolean>`exists (select 1 from ${endedSessions} where ${endedSessions.sessionId} = ${sessionId})`;
  const [row] = await base.db
    .select({ staff: staffUsers, merchant: merchants, ended })
    .from(staffUsers)
    .innerJoin(merchants, eq(merchants.id, staffUsers.merchantId))
    .where(eq(staffUsers.id, staffId));
  if (!row || row.ended) return null;
  const { passwordHash: _hash, ...staff } = row.staff;
  return { staff, merchant: row.merchant };
}
