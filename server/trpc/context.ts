import { TRPCError } from "@trpc/server";
import type { FetchCreateContextFnOptions } from "@trpc/server/adapters/fetch";
import { currentStaff } from "@/server/auth/current-staff";
import { PAGE_MODE_HEADER } from "@/server/domain/staff";
import { loggingFaults } from "@/server/http/faults";
import type { TrpcContext } from "./init";

/**
 * From the request's session cookie: the staff member (loaded again from the database) and the
 * mode; and the mode the calling tab's page was drawn in, which the procedures hold to the cookie's.
 * A fault loading them is logged here, as no procedure's own logging (mapErrors) runs without them.
 */
export async function createTrpcContext({ req }: FetchCreateContextFnOptions): Promise<TrpcContext> {
  const page = req.headers.get(PAGE_MODE_HEADER);
  const staff = await loggingFaults("dashboard call could not load its session", currentStaff);
  if (!staff.ok) throw new TRPCError({ code: "INTERNAL_SERVER_ERROR", message: `reference ${staff.reference}` });
  return { ...staff.value, pageLivemode: page === "live" ? true : page === "test" ? false : undefined };
}
