import { staffUsers } from "@/db/schema";
import { violatedUniqueConstraint } from "@/db/errors";
import { invalidParam } from "@/server/domain/errors";
import { newId } from "@/server/domain/ids";
import { generatePassword, hashPassword } from "@/server/domain/passwords";
import type { StaffRole } from "@/server/domain/staff";
import type { ServiceContext } from "@/server/context";
import type { ResponseRecord } from "@/server/services/idempotency/completion";
import { writeWithResponse } from "@/server/services/idempotency/with-response";
import { recordSecurityEvent } from "@/server/services/security-log/record-security-event";

export type AddedStaff = { staff: { id: string; email: string; role: StaffRole; createdAt: Date }; password: string };

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/**
 * A new staff member with a generated password, returned once for the admin to hand over (only
 * its hash is kept). A login is this business and the address: the same address may have a login,
 * with its own password, at other businesses, which this neither sees nor tells. With `response` (the
 * form's record), the answer showing the password commits with the login.
 */
export async function addStaffMember(ctx: ServiceContext, input: { email: string; role: StaffRole }, response?: ResponseRecord<AddedStaff>): Promise<AddedStaff> {
  const email = input.email.trim();
  if (!EMAIL.test(email) || email.length > 320) throw invalidParam("email", "Enter an e-mail address such as ana@shop.co.zw.");
  const password = generatePassword();
  const passwordHash = await hashPassword(password);
  const now = ctx.clock.now();
  try {
    return await writeWithResponse(ctx.db, response, async (tx) => {
      const [row] = await tx
        .insert(staffUsers)
        .values({ id: newId("staffUser", now), merchantId: ctx.merchant.id, email, passwordHash, role: input.role, createdAt: now })
        .returning({ id: staffUsers.id, email: staffUsers.email, role: staffUsers.role, createdAt: staffUsers.createdAt });
      await recordSecurityEvent(tx, ctx, { merchantId: ctx.merchant.id, action: "staff.added", target: { id: row!.id, label: row!.email }, detail: { role: row!.role } });
      return { staff: row!, password };
    });
  } catch (e) {
    if (violatedUniqueConstraint(e) === "staff_users_merchant_email_key") throw invalidParam("email", "That e-mail address is already on your team.");
    throw e;
  }
}
