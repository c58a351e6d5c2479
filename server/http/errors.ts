import { ERROR_CODES, ServiceError, type ErrorCode, type ErrorType } from "@/server/domain/errors";

/** The spec's types table: one HTTP status per error type. */
export const HTTP_STATUS = {
  invalid_request: 400,
  authentication_error: 401,
  permission_error: 403,
  not_found: 404,
  idempotency_conflict: 409,
  rate_limited: 429,
  api_error: 500,
} as const satisfies Record<ErrorType, number>;

export type ErrorBody = {
  error: { type: ErrorType; code: ErrorCode; message: string; param?: string; request_id: string };
};

export function errorBody(e: ServiceError, requestId: string): ErrorBody {
  return {
    error: {
      type: ERROR_CODES[e.code],
      code: e.code,
      message: e.message,
      ...(e.param !== undefined ? { param: e.param } : {}),
      request_id: requestId,
    },
  };
}

export function statusOf(e: ServiceError): number {
  return HTTP_STATUS[ERROR_CODES[e.code]];
}

/** What any fault we did not foresee becomes: nothing of its internals leaks. */
export const internalError = () =>
  new ServiceError(
    "internal",
    "An unexpected error occurred on our side. Query the resource to see whether the request took effect, then retry with the same Idempotency-Key.",
  );
