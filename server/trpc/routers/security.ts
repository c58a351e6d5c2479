import { z } from "zod";
import type { SecurityEvent } from "@/db/schema";
import { listSecurityEvents } from "@/server/services/security-log/list-security-events";
import { adminProcedure, pageInput, router } from "../init";

const toView = (e: SecurityEvent) => ({
  id: e.id,
  action: e.action,
  livemode: e.livemode,
  actor: { type: e.actorType, id: e.actorId, label: e.actorLabel },
  target: e.targetId === null ? null : { id: e.targetId, label: e.targetLabel ?? e.targetId },
  detail: e.detail,
  clientAddress: e.clientAddress,
  createdAt: e.createdAt.toISOString(),
});

export const securityRouter = router({
  /** The security log, newest first, keyset pages; admins only (it names every member's sign-ins). */
  list: adminProcedure
    .input(z.object(pageInput))
    .query(async ({ ctx, input }) => {
      const page = await listSecurityEvents(ctx.service, input);
      return { data: page.data.map(toView), hasMore: page.hasMore };
    }),
});
