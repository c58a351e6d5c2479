import { and, eq, sql } from "drizzle-orm";
import { merchants, staffUsers, type StaffUser } from "@/db/schema";
import { hashPassword, verifyPassword } from "@/server/domain/passwords";
import { couldBeLogin, loginPart } from "@/server/domain/staff";
import type { BaseContext } from "@/server/context";
import { recordSecurityEvent } from "@/server/services/security-log/record-security-event";

// Checked when the address is unknown, so an unknown address costs as long as a wrong password.
let decoy: Promise<string> | undefined;

/**
 * A staff member by business (its slug), e-mail address (both in any case) and password, or null;
 * never says which of the three was wrong, and an unknown business or address costs as long as a
 * wrong password. A browser that signed in to this login before (`knownBrowser`) has its password
 * checked ahead of others' (passwords.ts). A sign-in, and a wrong password for a staff member's login, go in their
 * merchant's security log (attempts at logins no one has go nowhere: they belong to no merchant).
 */
export async function authenticateStaff(
  base: BaseContext & { clientAddress?: string | null },
  input: { business: string; email: string; password: string; knownBrowser?: boolean },
): Promise<StaffUser | null> {
  const who = { known: input.knownBrowser };
  const business = loginPart(input.business);
  const email = loginPart(input.email);
  if (!couldBeLogin(business, email) || input.password.length === 0 || input.password.length > 1024) return null;
  const [row] = await base.db
    .select({ staff: staffUsers })
    .from(staffUsers)
    .innerJoin(merchants, eq(merchants.id, staffUsers.merchantId))
    .where(and(eq(merchants.slug, business), eq(sql`lower(${staffUsers.email})`, email)));
  const staff = row?.staff;
  if (!staff) {
    decoy ??= hashPassword("decoy password that matches nothing");
    await verifyPassword(input.password, await decoy, who);
    return null;
  }
  const matches = await verifyPassword(input.password, staff.passwordHash, who);
  const target = { id: staff.id, label: staff.email };
  if (!matches) {
    await recordSecurityEvent(base.db, { ...base, actor: { type: "anonymous" } }, { merchantId: staff.merchantId, action: "staff.sign_in_failed", target });
    return null;
  }
  await recordSecurityEvent(base.db, { ...base, actor: { type: "staff", userId: staff.id, email: staff.email } }, { merchantId: staff.merchantId, action: "staff.signed_in", target });
  return staff;
}
