import { asc, eq, getTableColumns } from "drizzle-orm";
import { staffUsers } from "@/db/schema";
import type { ServiceContext } from "@/server/context";

const { passwordHash: _hash, ...visible } = getTableColumns(staffUsers);

/** The merchant's staff, oldest first, without password hashes. */
export async function listStaff(ctx: ServiceContext) {
  return ctx.db.select(visible).from(staffUsers).where(eq(staffUsers.merchantId, ctx.merchant.id)).orderBy(asc(staffUsers.createdAt), asc(staffUsers.id));
}
