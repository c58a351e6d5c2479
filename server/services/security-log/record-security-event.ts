import { securityEvents } from "@/db/schema";
import type { Db } from "@/db/client";
import type { Actor, BaseContext } from "@/server/context";
import { newId } from "@/server/domain/ids";
import type { SecurityAction, SecurityActorType, SecurityDetail } from "@/server/domain/security-log";

/** Who acted, for an entry: an actor of a service context, or someone not signed in (a failed sign-in). */
export type SecurityActor = Actor | { type: "anonymous" };

/** What a verb that records an entry needs of its context. */
export type SecurityContext = BaseContext & { actor: SecurityActor; clientAddress?: string | null };

export type SecurityEntry = {
  merchantId: string;
  action: SecurityAction;
  /** The environment of what changed, for keys and endpoints. */
  livemode?: boolean | null;
  target?: { id: string; label: string } | null;
  detail?: SecurityDetail;
};

function actorColumns(actor: SecurityActor): { actorType: SecurityActorType; actorId: string | null; actorLabel: string } {
  switch (actor.type) {
    case "staff":
      return { actorType: "staff", actorId: actor.userId, actorLabel: actor.email };
    case "api_key":
      return { actorType: "api_key", actorId: actor.keyId, actorLabel: `API key ${actor.displayPrefix}` };
    case "system":
      return { actorType: "system", actorId: null, actorLabel: `Mari (${actor.job})` };
    case "anonymous":
      return { actorType: "anonymous", actorId: null, actorLabel: "Someone not signed in" };
  }
}

/**
 * Writes one entry of the security log. Call it with the transaction of the change it records
 * (`db`), so that the entry and the change commit or roll back together.
 */
export async function recordSecurityEvent(db: Db, ctx: SecurityContext, entry: SecurityEntry): Promise<void> {
  const now = ctx.clock.now();
  await db.insert(securityEvents).values({
    id: newId("securityEvent", now),
    merchantId: entry.merchantId,
    action: entry.action,
    livemode: entry.livemode ?? null,
    ...actorColumns(ctx.actor),
    targetId: entry.target?.id ?? null,
    targetLabel: entry.target?.label ?? null,
    detail: entry.detail ?? {},
    clientAddress: ctx.clientAddress ?? null,
    createdAt: now,
  });
}
