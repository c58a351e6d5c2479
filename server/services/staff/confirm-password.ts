import { eq } from "drizzle-orm";
import { merchants, staffUsers, type StaffUser } from "@/db/schema";
import { invalidParam, resourceMissing, ServiceError } from "@/server/domain/errors";
import { verifyPassword } from "@/server/domain/passwords";
import { loginKey } from "@/server/domain/staff";
import type { BaseContext } from "@/server/context";
import { consumeSignInAttempt, forgetSignInFailures } from "@/server/rate-limit";

/**
 * A signed-in staff member's own password, asked for again before what a stolen session must not
 * be able to do alone: change the password, give someone a login (add a member, reset a password,
 * make someone admin), or see a live secret (a live API key, a live endpoint's signing secret).
 * Guesses spend a budget of the member's sessions as large as a sign-in's (consumeSignInAttempt),
 * so an open session is no faster way to guess. Returns the staff member as read.
 */
export async function confirmStaffPassword(base: BaseContext, input: { staffId: string; password: string | undefined; param: string }): Promise<StaffUser> {
  if (!input.password) throw invalidParam(input.param, "Enter your password to confirm.");
  const [row] = await base.db
    .select({ staff: staffUsers, business: merchants.slug })
    .from(staffUsers)
    .innerJoin(merchants, eq(merchants.id, staffUsers.merchantId))
    .where(eq(staffUsers.id, input.staffId));
  if (!row) throw resourceMissing("staff member", input.staffId);
  const { staff } = row;
  const login = loginKey(row.business, staff.email);

  // The member's own session is a browser known to them: a flood of guesses at the sign-in page
  // does not lock them out of confirming, and a session gets no more guesses than a sign-in.
  const known = `staff:${staff.id}`;
  const allowed = await consumeSignInAttempt(login, null, known);
  if (!allowed.ok) {
    const minutes = Math.ceil(allowed.retryAfterSeconds / 60);
    const wait = minutes === 1 ? "a minute" : `${minutes} minutes`;
    throw new ServiceError("rate_limited", `Too many password attempts. Wait ${wait} and try again.`, input.param, { retryAfterSeconds: allowed.retryAfterSeconds });
  }
  // A signed-in member: checked ahead of sign-ins from unknown browsers.
  if (!(await verifyPassword(input.password, staff.passwordHash, { known: true }))) throw invalidParam(input.param, "That is not your current password.");
  await forgetSignInFailures(login, known);
  return staff;
}
