import { and, eq } from "drizzle-orm";
import { staffUsers } from "@/db/schema";
import { resourceMissing } from "@/server/domain/errors";
import type { StaffRole } from "@/server/domain/staff";
import type { ServiceContext } from "@/server/context";
import { keepAnAdmin } from "./staff-guard";

/** A staff member's new role; the merchant always keeps an admin. Takes effect on their next request. */
export async function changeStaffRole(ctx: ServiceContext, input: { staffId: string; role: StaffRole }) {
  return ctx.db.transaction(async (tx) => {
    if (input.role !== "admin") await keepAnAdmin(tx, ctx.merchant.id, input.staffId);
    const [row] = await tx
      .update(staffUsers)
      .set({ role: input.role })
      .where(and(eq(staffUsers.id, input.staffId), eq(staffUsers.merchantId, ctx.merchant.id)))
      .returning({ id: staffUsers.id, email: staffUsers.email, role: staffUsers.role, createdAt: staffUsers.createdAt });
    if (!row) throw resourceMissing("staff member", input.staffId);
    return row;
  });
}
