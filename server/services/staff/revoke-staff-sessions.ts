import { eq } from "drizzle-orm";
import { staffUsers } from "@/db/schema";
import { resourceMissing } from "@/server/domain/errors";
import type { BaseContext } from "@/server/context";

/**
 * Signs a staff member out everywhere: every session signed in until now stops counting (a
 * browser left signed in elsewhere, a copied cookie). Their next sign-in starts afresh.
 */
export async function revokeStaffSessions(base: BaseContext, staffId: string): Promise<void> {
  const [row] = await base.db.update(staffUsers).set({ sessionsRevokedAt: base.clock.now() }).where(eq(staffUsers.id, staffId)).returning({ id: staffUsers.id });
  if (!row) throw resourceMissing("staff member", staffId);
}
