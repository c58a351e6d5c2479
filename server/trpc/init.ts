import { getTRPCErrorFromUnknown, initTRPC, TRPCError, type TRPC_ERROR_CODE_KEY } from "@trpc/server";
import { z } from "zod";
import { PASSWORD_MAX_LENGTH } from "@/server/domain/passwords";
import { staffServiceContext } from "@/server/auth/current-staff";
import type { ServiceContext } from "@/server/context";
import { invalidParam, isServiceError, type ErrorType } from "@/server/domain/errors";
import { findUnstorable, UNSTORABLE_MESSAGE } from "@/server/domain/unstorable";
import { modeName, roleAllows, type StaffRole } from "@/server/domain/staff";
import { toParamError } from "@/server/http/validation";
import { log } from "@/server/log";
import { confirmStaffPassword } from "@/server/services/staff/confirm-password";
import type { StaffSession } from "@/server/services/staff/load-staff-session";
import type { systemContext } from "@/server/system-context";

/** What every dashboard call starts from: the signed-in staff member (or none) and the chosen environment. */
export type TrpcContext = {
  base: Awaited<ReturnType<typeof systemContext>>;
  session: StaffSession | null;
  /** The dashboard's test/live switch. */
  livemode: boolean;
  /** Where the request came from, when trusted proxies tell it. */
  clientAddress?: string | null;
  /** The mode the calling tab's page was drawn in (PAGE_MODE_HEADER), when it says. */
  pageLivemode?: boolean;
};

/** The one map from the service's error types to tRPC's codes (the /v1 twin is server/http/errors.ts). */
const TRPC_CODE = {
  invalid_request: "BAD_REQUEST",
  authentication_error: "UNAUTHORIZED",
  permission_error: "FORBIDDEN",
  not_found: "NOT_FOUND",
  idempotency_conflict: "CONFLICT",
  rate_limited: "TOO_MANY_REQUESTS",
  api_error: "INTERNAL_SERVER_ERROR",
} as const satisfies Record<ErrorType, TRPC_ERROR_CODE_KEY>;

const t = initTRPC.context<TrpcContext>().create({
  errorFormatter({ shape, error, input }) {
    const cause = error.cause;
    const service = isServiceError(cause) ? { code: cause.code, param: cause.param ?? null } : null;
    const fields = cause instanceof z.ZodError ? z.flattenError(cause).fieldErrors : null;
    // Internal errors never carry their message or stack to the browser; a refused input is said in words, as the API says it.
    const message =
      error.code === "INTERNAL_SERVER_ERROR"
        ? "Something went wrong on our side. Try again."
        : cause instanceof z.ZodError
          ? toParamError(cause, "body", input).message
          : shape.message;
    return { ...shape, message, data: { code: shape.data.code, httpStatus: shape.data.httpStatus, service, fields } };
  },
});

export const router = t.router;
export const createCallerFactory = t.createCallerFactory;

/**
 * What a dashboard call answers for an error: a service error becomes the tRPC error of its
 * type; an internal fault is logged (the formatter hides it from the page); the rest stay as they are.
 */
export function dashboardError(error: unknown, path: string): TRPCError {
  const trpcError = getTRPCErrorFromUnknown(error);
  const cause = trpcError.cause;
  if (isServiceError(cause)) return new TRPCError({ code: TRPC_CODE[cause.type], message: cause.message, cause });
  if (trpcError.code === "INTERNAL_SERVER_ERROR") log.error("dashboard call failed", { path, error: cause ?? trpcError });
  return trpcError;
}

/** Every error of a call, as dashboardError answers it. */
const mapErrors = t.middleware(async ({ next, path }) => {
  const result = await next();
  if (result.ok) return result;
  const answer = dashboardError(result.error, path);
  if (answer !== result.error) throw answer;
  return result;
});

/** Input that could not be kept as sent (NUL, half a surrogate pair, `__proto__`) is refused by name, as the API refuses it. */
const refuseUnstorable = t.middleware(async ({ getRawInput, next }) => {
  const found = findUnstorable(await getRawInput());
  if (found) throw invalidParam(found.path || "input", UNSTORABLE_MESSAGE[found.problem]);
  return next();
});

/** Signed in: the staff member's own merchant, in the chosen environment, as a service context. */
const signedIn = t.procedure.use(mapErrors).use(({ ctx, next }) => {
  if (!ctx.session) throw new TRPCError({ code: "UNAUTHORIZED", message: "Not done: your session has ended. Sign in again, then try again." });
  if (ctx.pageLivemode !== undefined && ctx.pageLivemode !== ctx.livemode) {
    throw new TRPCError({
      code: "PRECONDITION_FAILED",
      message: `This page shows ${modeName(ctx.pageLivemode)} data, but ${modeName(ctx.livemode)} mode was chosen in another tab. Reload the page to work in ${modeName(ctx.livemode)} mode.`,
    });
  }
  const service: ServiceContext = staffServiceContext(ctx.base, ctx.session, ctx.livemode, ctx.clientAddress);
  return next({ ctx: { ...ctx, staff: ctx.session.staff, service } });
});

/** …whose input is looked at only once the caller is known to be signed in. */
const staffProcedure = signedIn.use(refuseUnstorable);

const atLeast = (role: StaffRole) =>
  staffProcedure.use(({ ctx, next }) => {
    if (!roleAllows(ctx.staff.role, role)) throw new TRPCError({ code: "FORBIDDEN", message: `This needs the ${role} role; yours is ${ctx.staff.role}.` });
    return next();
  });

/** Reads: every role. */
export const viewerProcedure = atLeast("viewer");
/** Keys, endpoints, replays, refunds. */
export const developerProcedure = atLeast("developer");
/** Staff, settings, payouts, resolving unresolved payments. */
export const adminProcedure = atLeast("admin");

/** An object's id as a page sends it; the services answer NOT_FOUND for any that is not the merchant's. */
export const objectId = z.string().max(64);

/** A keyset page of a list, as every list of the dashboard asks for one. */
export const pageInput = {
  limit: z.number().int().min(1).max(100).default(25),
  startingAfter: objectId.optional(),
  endingBefore: objectId.optional(),
};

/** The caller's own password, as a mutation that needs it takes it (confirmPassword). */
export const confirmPasswordInput = z.string().max(PASSWORD_MAX_LENGTH).optional();

/**
 * Before what a stolen session must not do alone (confirmStaffPassword): the caller's password,
 * checked before anything else is looked up, so a wrong one tells nothing about the target.
 */
export async function confirmCallerPassword(ctx: { service: ServiceContext; staff: { id: string } }, password: string | undefined): Promise<void> {
  await confirmStaffPassword(ctx.service, { staffId: ctx.staff.id, password, param: "confirmPassword" });
}
