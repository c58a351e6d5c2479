import { eq, sql } from "drizzle-orm";
import { staffUsers, type StaffUser } from "@/db/schema";
import { hashPassword, verifyPassword } from "@/server/domain/passwords";
import type { BaseContext } from "@/server/context";

// Checked when the address is unknown, so an unknown address costs as long as a wrong password.
let decoy: Promise<string> | undefined;

/** A staff member by e-mail (any case) and password, or null; never says which of the two was wrong. */
export async function authenticateStaff(base: BaseContext, input: { email: string; password: string }): Promise<StaffUser | null> {
  const email = input.email.trim().toLowerCase();
  if (email.length === 0 || email.length > 320 || input.password.length === 0 || input.password.length > 1024) return null;
  const [staff] = await base.db.select().from(staffUsers).where(eq(sql`lower(${staffUsers.email})`, email));
  if (!staff) {
    decoy ??= hashPassword("decoy password that matches nothing");
    await verifyPassword(input.password, await decoy);
    return null;
  }
  return (await verifyPassword(input.password, staff.passwordHash)) ? staff : null;
}
