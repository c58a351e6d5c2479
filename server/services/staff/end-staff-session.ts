import { lte } from "drizzle-orm";
import { endedSessions } from "@/db/schema";
import type { BaseContext } from "@/server/context";

/**
 * Signing out: this one session stops counting at once, on every instance, for whoever holds a
 * copy of its cookie (the staff member's other sessions go on). Rows of sessions that would have
 * run out anyway go first, so the table holds only the last SESSION_MAX_AGE_HOURS of sign-outs.
 */
export async function endStaffSession(ctx: BaseContext, input: { staffId: string; sessionId: string; expiresAt: Date }): Promise<void> {
  const now = ctx.clock.now();
  await ctx.db.delete(endedSessions).where(lte(endedSessions.expiresAt, now));
  await ctx.db
    .insert(endedSessions)
    .values({ sessionId: input.sessionId, staffId: input.staffId, endedAt: now, expiresAt: input.expiresAt })
    .onConflictDoNothing();
}
