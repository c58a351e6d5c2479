import { getServerSession } from "next-auth";
import { cookies, headers } from "next/headers";
import type { ServiceContext } from "@/server/context";
import { newId } from "@/server/domain/ids";
import { MODE_COOKIE, sessionStillValid, type SessionMarks } from "@/server/domain/staff";
import { env } from "@/server/env";
import { trustedClientAddress } from "@/server/http/client-address";
import { loadStaffSession, type StaffSession } from "@/server/services/staff/load-staff-session";
import { systemContext } from "@/server/system-context";
import { authOptions } from "./options";

type Base = Awaited<ReturnType<typeof systemContext>>;

/**
 * Who is asking, for every dashboard adapter (tRPC, pages, the CSV export): the staff member named
 * by the session cookie, loaded again from the database (null when signed out, removed, or when
 * the cookie is too old or was revoked: sessionStillValid), and the environment the switch chose.
 */
export async function currentStaff(): Promise<{ base: Base; session: StaffSession | null; livemode: boolean; clientAddress: string | null }> {
  // The request's own values first: at build time they end the page's prerender (it is per
  // request) before the database is opened, so a build never touches it.
  const livemode = (await cookies()).get(MODE_COOKIE)?.value === "live";
  const address = trustedClientAddress((await headers()).get("x-forwarded-for"));
  const cookie = (await getServerSession(authOptions())) as { staffId?: string; marks?: SessionMarks } | null;
  const base = await systemContext();
  const sessionId = cookie?.marks?.sessionId;
  const session = cookie?.staffId && typeof sessionId === "string" ? await loadStaffSession(base, cookie.staffId, sessionId) : null;
  const maxAgeMs = env().SESSION_MAX_AGE_HOURS * 3_600_000;
  const current = session !== null && sessionStillValid(cookie?.marks ?? {}, session.staff.sessionsRevokedAt, base.clock.now(), maxAgeMs);
  return { base, session: current ? session : null, livemode, clientAddress: address };
}

/** The service context a signed-in staff member acts in: their own merchant, the chosen environment. */
export function staffServiceContext(base: Base, session: StaffSession, livemode: boolean, address: string | null = null): ServiceContext {
  return {
    ...base,
    merchant: session.merchant,
    livemode,
    actor: { type: "staff", userId: session.staff.id, email: session.staff.email },
    requestId: newId("request"),
    clientAddress: address,
  };
}
