import { and, eq } from "drizzle-orm";
import { staffUsers } from "@/db/schema";
import { invalidParam, resourceMissing } from "@/server/domain/errors";
import { generatePassword } from "@/server/domain/passwords";
import { loginKey } from "@/server/domain/staff";
import type { ServiceContext } from "@/server/context";
import { forgetSignInFailures } from "@/server/rate-limit";
import type { ResponseRecord } from "@/server/services/idempotency/completion";
import { writeWithResponse } from "@/server/services/idempotency/with-response";
import { recordSecurityEvent } from "@/server/services/security-log/record-security-event";
import { newPasswordColumns } from "./new-password";

export type ResetPassword = { staff: { id: string; email: string }; password: string };

/**
 * An admin gives a team member who lost their password a new one, returned once to hand over (as
 * when adding them); the member is signed out everywhere at once. Admins change their own with
 * their current password instead, so a session left open cannot lock its owner out. The member's
 * failed sign-in attempts are forgotten, so the new password works at once. With `response` (the
 * form's record), the answer showing the password commits with it.
 */
export async function resetStaffPassword(ctx: ServiceContext, input: { staffId: string; by: string }, response?: ResponseRecord<ResetPassword>): Promise<ResetPassword> {
  if (input.staffId === input.by) throw invalidParam("id", "Change your own password on your account page, with your current one.");
  const password = generatePassword();
  const columns = await newPasswordColumns(password, ctx.clock.now());
  const done = await writeWithResponse(ctx.db, response, async (tx) => {
    const [reset] = await tx
      .update(staffUsers)
      .set(columns)
      .where(and(eq(staffUsers.id, input.staffId), eq(staffUsers.merchantId, ctx.merchant.id)))
      .returning({ id: staffUsers.id, email: staffUsers.email });
    if (!reset) throw resourceMissing("staff member", input.staffId);
    await recordSecurityEvent(tx, ctx, { merchantId: ctx.merchant.id, action: "staff.password_reset", target: { id: reset.id, label: reset.email } });
    return { staff: reset, password };
  });
  // Someone who lost their password has often just spent their sign-in attempts guessing it.
  await forgetSignInFailures(loginKey(ctx.merchant.slug, done.staff.email));
  return done;
}
