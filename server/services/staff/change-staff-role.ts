import { and, eq } from "drizzle-orm";
import { staffUsers } from "@/db/schema";
import { resourceMissing } from "@/server/domain/errors";
import type { StaffRole } from "@/server/domain/staff";
import type { ServiceContext } from "@/server/context";
import { recordSecurityEvent } from "@/server/services/security-log/record-security-event";
import { keepAnAdmin } from "./staff-guard";

/**
 * A staff member's new role; the merchant always keeps an admin. Takes effect on their next
 * request. A change to the role they already hold changes nothing and records nothing.
 */
export async function changeStaffRole(ctx: ServiceContext, input: { staffId: string; role: StaffRole }) {
  return ctx.db.transaction(async (tx) => {
    if (input.role !== "admin") await keepAnAdmin(tx, ctx.merchant.id, input.staffId);
    const mine = and(eq(staffUsers.id, input.staffId), eq(staffUsers.merchantId, ctx.merchant.id));
    const [before] = await tx.select({ role: staffUsers.role }).from(staffUsers).where(mine).for("update");
    if (!before) throw resourceMissing("staff member", input.staffId);
    const [row] = await tx
      .update(staffUsers)
      .set({ role: input.role })
      .where(mine)
      .returning({ id: staffUsers.id, email: staffUsers.email, role: staffUsers.role, createdAt: staffUsers.createdAt });
    if (before.role !== row!.role) {
      await recordSecurityEvent(tx, ctx, { merchantId: ctx.merchant.id, action: "staff.role_changed", target: { id: row!.id, label: row!.email }, detail: { role: { from: before.role, to: row!.role } } });
    }
    return row!;
  });
}
