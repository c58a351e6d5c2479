import { and, eq } from "drizzle-orm";
import { staffUsers } from "@/db/schema";
import { invalidParam, resourceMissing } from "@/server/domain/errors";
import type { ServiceContext } from "@/server/context";
import { recordSecurityEvent } from "@/server/services/security-log/record-security-event";
import { keepAnAdmin } from "./staff-guard";

/** Removes a staff member: their session stops working on its next request. Not yourself, not the last admin. */
export async function removeStaffMember(ctx: ServiceContext, staffId: string): Promise<void> {
  if (ctx.actor.type === "staff" && ctx.actor.userId === staffId) throw invalidParam("id", "You cannot remove yourself; ask another admin.");
  await ctx.db.transaction(async (tx) => {
    await keepAnAdmin(tx, ctx.merchant.id, staffId);
    const [gone] = await tx
      .delete(staffUsers)
      .where(and(eq(staffUsers.id, staffId), eq(staffUsers.merchantId, ctx.merchant.id)))
      .returning({ id: staffUsers.id, email: staffUsers.email, role: staffUsers.role });
    if (!gone) throw resourceMissing("staff member", staffId);
    await recordSecurityEvent(tx, ctx, { merchantId: ctx.merchant.id, action: "staff.removed", target: { id: gone.id, label: gone.email }, detail: { role: gone.role } });
  });
}
