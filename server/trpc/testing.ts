import { TRPCError } from "@trpc/server";
import { getDb } from "@/db/client";
import { staffUsers } from "@/db/schema";
import { newId } from "@/server/domain/ids";
import { hashPassword } from "@/server/domain/passwords";
import type { StaffRole } from "@/server/domain/staff";
import { loadStaffSession } from "@/server/services/staff/load-staff-session";
import { systemContext } from "@/server/system-context";
import type { TestMerchant } from "@/server/testing/fixtures";
import { createCallerFactory } from "./init";
import { appRouter } from "./routers/_app";

const createCaller = createCallerFactory(appRouter);

/** The password of every staff member dashboardAs makes, for the mutations that ask for it again. */
export const STAFF_TEST_PASSWORD = "the test staff member's passphrase";
// One hash for them all: scrypt is slow on purpose.
let testHash: Promise<string> | undefined;

/** A staff member of `m` with `role` and the password STAFF_TEST_PASSWORD; their id. */
export async function insertTestStaff(m: TestMerchant, role: StaffRole): Promise<string> {
  const now = new Date();
  const id = newId("staffUser", now);
  testHash ??= hashPassword(STAFF_TEST_PASSWORD);
  await (await getDb()).insert(staffUsers).values({ id, merchantId: m.merchant.id, email: `${role}-${id}@test.mari.test`, passwordHash: await testHash, role, createdAt: now });
  return id;
}

/**
 * The dashboard's procedures as a staff member of `m` with `role` sees them, in test or live
 * mode: a real staff row (insertTestStaff), loaded the way a request loads it. `pageLivemode` is
 * the mode the calling tab's page was drawn in, when it says one.
 */
export async function dashboardAs(m: TestMerchant, role: StaffRole, livemode = false, opts: { pageLivemode?: boolean } = {}) {
  const id = await insertTestStaff(m, role);
  const base = await systemContext();
  return createCaller({ base, session: await loadStaffSession(base, id, "session-of-a-test"), livemode, pageLivemode: opts.pageLivemode });
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
