import { and, eq } from "drizzle-orm";
import { staffUsers } from "@/db/schema";
import { invalidParam, resourceMissing, ServiceError } from "@/server/domain/errors";
import { passwordProblem, verifyPassword } from "@/server/domain/passwords";
import type { BaseContext } from "@/server/context";
import { consumeSignInAttempt, forgetSignInFailures } from "@/server/rate-limit";
import { newPasswordColumns } from "./new-password";

/**
 * A staff member's new password, given their current one. Guesses at the current password spend
 * the same budget as sign-in attempts, so a session left open is no way round that limit. The
 * change is a compare-and-set on the old hash: of two changes at once, one wins and the other is
 * told. It moves `sessions_revoked_at`, which ends every session signed in with the old password
 * (the caller's browser signs in again with the new one).
 */
export async function changeOwnPassword(base: BaseContext, input: { staffId: string; current: string; password: string }): Promise<{ email: string }> {
  const [staff] = await base.db.select().from(staffUsers).where(eq(staffUsers.id, input.staffId));
  if (!staff) throw resourceMissing("staff member", input.staffId);

  const allowed = await consumeSignInAttempt(staff.email, null);
  if (!allowed.ok) {
    const minutes = Math.ceil(allowed.retryAfterSeconds / 60);
    const wait = minutes === 1 ? "a minute" : `${minutes} minutes`;
    throw new ServiceError("rate_limited", `Too many password attempts. Wait ${wait} and try again.`, "current", { retryAfterSeconds: allowed.retryAfterSeconds });
  }
  if (!(await verifyPassword(input.current, staff.passwordHash))) throw invalidParam("current", "That is not your current password.");
  await forgetSignInFailures(staff.email);

  const problem = passwordProblem(input.password, staff.email);
  if (problem) throw invalidParam("password", problem);
  if (input.password === input.current) throw invalidParam("password", "Choose a password other than your current one.");

  const [changed] = await base.db
    .update(staffUsers)
    .set(await newPasswordColumns(input.password, base.clock.now()))
    .where(and(eq(staffUsers.id, staff.id), eq(staffUsers.passwordHash, staff.passwordHash)))
    .returning({ email: staffUsers.email });
  if (!changed) throw invalidParam("current", "Your password was changed elsewhere at the same moment. Sign in again with the new one.");
  return changed;
}
