import { eq } from "drizzle-orm";
import { staffUsers } from "@/db/schema";
import { resourceMissing } from "@/server/domain/errors";
import { recordSecurityEvent, type SecurityContext } from "@/server/services/security-log/record-security-event";

/**
 * Signs a staff member out everywhere: every session signed in until now stops counting (a
 * browser left signed in elsewhere, a copied cookie). Their next sign-in starts afresh.
 */
export async function revokeStaffSessions(ctx: SecurityContext, staffId: string): Promise<void> {
  await ctx.db.transaction(async (tx) => {
    const [row] = await tx
      .update(staffUsers)
      .set({ sessionsRevokedAt: ctx.clock.now() })
      .where(eq(staffUsers.id, staffId))
      .returning({ id: staffUsers.id, email: staffUsers.email, merchantId: staffUsers.merchantId });
    if (!row) throw resourceMissing("staff member", staffId);
    await recordSecurityEvent(tx, ctx, { merchantId: row.merchantId, action: "staff.signed_out_everywhere", target: { id: row.id, label: row.email } });
  });
}
