import { and, eq } from "drizzle-orm";
import { staffUsers } from "@/db/schema";
import { invalidParam } from "@/server/domain/errors";
import { passwordProblem } from "@/server/domain/passwords";
import { recordSecurityEvent, type SecurityContext } from "@/server/services/security-log/record-security-event";
import { confirmStaffPassword } from "./confirm-password";
import { newPasswordColumns } from "./new-password";

/**
 * A staff member's new password, given their current one (confirmStaffPassword, whose budget
 * guesses spend). The change is a compare-and-set on the old hash: of two changes at once, one
 * wins and the other is told. It moves `sessions_revoked_at`, which ends every session signed in
 * with the old password (the caller's browser signs in again with the new one), and is recorded
 * in the security log in the same transaction.
 */
export async function changeOwnPassword(ctx: SecurityContext, input: { staffId: string; current: string; password: string }): Promise<{ email: string }> {
  const staff = await confirmStaffPassword(ctx, { staffId: input.staffId, password: input.current, param: "current" });

  const problem = passwordProblem(input.password, staff.email);
  if (problem) throw invalidParam("password", problem);
  if (input.password === input.current) throw invalidParam("password", "Choose a password other than your current one.");

  const columns = await newPasswordColumns(input.password, ctx.clock.now());
  return ctx.db.transaction(async (tx) => {
    const [changed] = await tx
      .update(staffUsers)
      .set(columns)
      .where(and(eq(staffUsers.id, staff.id), eq(staffUsers.passwordHash, staff.passwordHash)))
      .returning({ email: staffUsers.email });
    if (!changed) throw invalidParam("current", "Your password was changed elsewhere at the same moment. Sign in again with the new one.");
    await recordSecurityEvent(tx, ctx, { merchantId: staff.merchantId, action: "staff.password_changed", target: { id: staff.id, label: staff.email } });
    return changed;
  });
}
