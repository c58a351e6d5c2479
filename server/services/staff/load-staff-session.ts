import { eq } from "drizzle-orm";
import { merchants, staffUsers, type Merchant, type StaffUser } from "@/db/schema";
import type { BaseContext } from "@/server/context";

export type StaffSession = { staff: Omit<StaffUser, "passwordHash">; merchant: Merchant };

/**
 * The signed-in staff member and their merchant, read on every dashboard request: a removed
 * user or a changed role takes effect at once, whatever the session cookie says.
 */
export async function loadStaffSession(base: BaseContext, staffId: string): Promise<StaffSession | null> {
  const [row] = await base.db
    .select({ staff: staffUsers, merchant: merchants })
    .from(staffUsers)
    .innerJoin(merchants, eq(merchants.id, staffUsers.merchantId))
    .where(eq(staffUsers.id, staffId));
  if (!row) return null;
  const { passwordHash: _hash, ...staff } = row.staff;
  return { staff, merchant: row.merchant };
}
