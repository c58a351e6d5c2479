import { TRPCError } from "@trpc/server";
import { getDb } from "@/db/client";
import { staffUsers } from "@/db/schema";
import { newId } from "@/server/domain/ids";
import type { StaffRole } from "@/server/domain/staff";
import { loadStaffSession } from "@/server/services/staff/load-staff-session";
import { systemContext } from "@/server/system-context";
import type { TestMerchant } from "@/server/testing/fixtures";
import { createCallerFactory } from "./init";
import { appRouter } from "./routers/_app";

const createCaller = createCallerFactory(appRouter);

/**
 * The dashboard's procedures as a staff member of `m` with `role` sees them, in test or live
 * mode: a real staff row, loaded the way a request loads it.
 */
export async function dashboardAs(m: TestMerchant, role: StaffRole, livemode = false) {
  const db = await getDb();
  const now = new Date();
  const id = newId("staffUser", now);
  await db.insert(staffUsers).values({ id, merchantId: m.merchant.id, email: `${role}-${id}@test.mari.test`, passwordHash: "scrypt$1$1$1$x$y", role, createdAt: now });
  const base = await systemContext();
  return createCaller({ base, session: await loadStaffSession(base, id), livemode });
}

/** No one signed in. */
export async function dashboardSignedOut() {
  return createCaller({ base: await systemContext(), session: null, livemode: false });
}

/** The tRPC code a call was refused with ("OK" if it was not), or the error itself when it is not a TRPCError. */
export async function refusal(p: Promise<unknown>): Promise<string> {
  try {
    await p;
    return "OK";
  } catch (e) {
    return e instanceof TRPCError ? e.code : `not a TRPCError: ${String(e)}`;
  }
}
