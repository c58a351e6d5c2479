import { createTRPCClient } from "@trpc/client";
import { TRPCError } from "@trpc/server";
import { fetchRequestHandler } from "@trpc/server/adapters/fetch";
import { dashboardLinks, untilDone } from "@/components/dashboard/links";
import { getDb } from "@/db/client";
import { staffUsers } from "@/db/schema";
import { newId } from "@/server/domain/ids";
import { hashPassword } from "@/server/domain/passwords";
import type { StaffRole } from "@/server/domain/staff";
import { loadStaffSession } from "@/server/services/staff/load-staff-session";
import { systemContext } from "@/server/system-context";
import type { TestMerchant } from "@/server/testing/fixtures";
import { createCallerFactory, type TrpcContext } from "./init";
import type { ProgressChunk } from "./progress-stream";
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
  return createCaller({ ...(await staffContext(m, role, livemode)), pageLivemode: opts.pageLivemode });
}

/** What the dashboard's request context holds for a signed-in staff member of `m` with `role`, in one mode. */
export async function staffContext(m: TestMerchant, role: StaffRole, livemode = false): Promise<TrpcContext> {
  const id = await insertTestStaff(m, role);
  const base = await systemContext();
  return { base, session: await loadStaffSession(base, id, "session-of-a-test"), livemode };
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

/**
 * The page's own tRPC client (its links: batching, streaming for STREAMED_PROCEDURES), its
 * requests handed to tRPC's fetch handler with `ctx` in place of the cookie's.
 */
export function dashboardClient(ctx: TrpcContext) {
  const fetch = async (url: URL | RequestInfo, init?: RequestInit) =>
    fetchRequestHandler({ endpoint: "/api/trpc", req: new Request(new URL(String(url), "http://localhost:3000"), init), router: appRouter, createContext: async () => ctx });
  return createTRPCClient<typeof appRouter>({ links: dashboardLinks(ctx.livemode, fetch) });
}

/** A streamed procedure's answer read to its end, as the page reads it (untilDone): every report of progress, in order, and the result. */
export async function streamed<P, R>(call: Promise<AsyncIterable<ProgressChunk<P, R>>>): Promise<{ progress: P[]; result: R }> {
  const progress: P[] = [];
  const result = await untilDone(await call, (p) => progress.push(p));
  return { progress, result };
}
