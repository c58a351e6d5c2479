import { currentStaff } from "@/server/auth/current-staff";
import type { TrpcContext } from "./init";

/** From the request's session cookie: the staff member (loaded again from the database) and the mode. */
export const createTrpcContext = (): Promise<TrpcContext> => currentStaff();
