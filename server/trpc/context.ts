import type { FetchCreateContextFnOptions } from "@trpc/server/adapters/fetch";
import { currentStaff } from "@/server/auth/current-staff";
import { PAGE_MODE_HEADER } from "@/server/domain/staff";
import type { TrpcContext } from "./init";

/**
 * From the request's session cookie: the staff member (loaded again from the database) and the
 * mode; and the mode the calling tab's page was drawn in, which the procedures hold to the cookie's.
 */
export async function createTrpcContext({ req }: FetchCreateContextFnOptions): Promise<TrpcContext> {
  const page = req.headers.get(PAGE_MODE_HEADER);
  return { ...(await currentStaff()), pageLivemode: page === "live" ? true : page === "test" ? false : undefined };
}
