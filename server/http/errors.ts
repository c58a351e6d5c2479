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

const BASE_HEADERS = { "Content-Type": "application/json; charset=utf-8", "Cache-Control": "no-store" };

/** A /v1 answer: JSON, never cached, with its Request-Id. */
export function raw(status: number, body: string, requestId: string, extra: Record<string, string> = {}): Response {
  return new Response(body, { status, headers: { ...BASE_HEADERS, "Request-Id": requestId, ...extra } });
}

/**
 * True when a raw (still percent-encoded) path does not decode to UTF-8 (`%ff`, a lone `%`). Next
 * cannot route such a path and answers a bare 500 of its own, so proxy.ts answers it first.
 */
export function isMalformedPath(rawPath: string): boolean {
  try {
    decodeURIComponent(rawPath);
    return false;
  } catch {
    return true;
  }
}

/**
 * The answer to a /v1 path that no operation serves: 404 in the error envelope. A path with a
 * trailing slash is one of them (each operation has one address, as the API reference writes it),
 * and the message names the address meant.
 */
export function unrecognizedPathResponse(method: string, pathname: string, requestId: string): Response {
  const trimmed = pathname.replace(/\/+$/, "");
  const meant = otherVersionOf(pathname);
  const hint =
    meant !== null
      ? ` This API has one version, v1: ${method} ${meant}.`
      : trimmed !== pathname && trimmed !== "/v1"
        ? ` Paths take no trailing slash: ${method} ${trimmed}.`
        : "";
  const error = new ServiceError("resource_missing", `Unrecognized request URL (${method} ${pathname}).${hint}`);
  return raw(statusOf(error), JSON.stringify(errorBody(error, requestId)), requestId);
}

/**
 * A path that names a version of the API other than v1 (`/v2/payments`, `/V1/payments`,
 * `/v1.1/payments`): the same path under /v1, else null. proxy.ts answers these in the error
 * envelope, as it would any /v1 path no operation serves, rather than with the site's HTML 404.
 */
export function otherVersionOf(pathname: string): string | null {
  const m = /^\/[vV]\d[^/]*(\/.*)?$/.exec(pathname);
  if (!m || pathname === "/v1" || pathname.startsWith("/v1/")) return null;
  return `/v1${m[1] ?? ""}`;
}

/** The answer to a malformed /v1 path: 400 in the error envelope. */
export function malformedPathResponse(requestId: string): Response {
  const error = new ServiceError("parameter_invalid", "The request path is not valid percent-encoded UTF-8.", "path");
  return raw(statusOf(error), JSON.stringify(errorBody(error, requestId)), requestId);
}
