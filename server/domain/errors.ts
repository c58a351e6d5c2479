/**
 * The one error vocabulary. Services throw `ServiceError` with a spec code; each transport
 * (server/http for /v1, the tRPC middleware for the dashboard) maps code → its own status.
 */
export const ERROR_TYPES = [
  "invalid_request",
  "authentication_error",
  "permission_error",
  "not_found",
  "idempotency_conflict",
  "rate_limited",
  "api_error",
] as const;
export type ErrorType = (typeof ERROR_TYPES)[number];

/** Every code the service can answer with, and the spec type it carries. */
export const ERROR_CODES = {
  parameter_invalid: "invalid_request",
  idempotency_key_required: "invalid_request",
  msisdn_invalid: "invalid_request",
  reference_in_use: "invalid_request",
  link_expired: "invalid_request",
  link_used: "invalid_request",
  refund_amount_invalid: "invalid_request",
  checkout_session_closed: "invalid_request",
  payment_in_progress: "invalid_request",
  api_key_invalid: "authentication_error",
  scope_missing: "permission_error",
  resource_missing: "not_found",
  idempotency_key_reused: "idempotency_conflict",
  request_in_progress: "idempotency_conflict",
  rate_limited: "rate_limited",
  internal: "api_error",
} as const satisfies Record<string, ErrorType>;

export type ErrorCode = keyof typeof ERROR_CODES;

const SERVICE_ERROR = Symbol.for("mari.ServiceError");

export class ServiceError extends Error {
  readonly [SERVICE_ERROR] = true;
  readonly code: ErrorCode;
  readonly param: string | undefined;
  /** For `rate_limited`: seconds until a retry can succeed (the `Retry-After` header). */
  readonly retryAfterSeconds: number | undefined;

  constructor(code: ErrorCode, message: string, param?: string, opts: { retryAfterSeconds?: number } = {}) {
    super(message);
    this.name = "ServiceError";
    this.code = code;
    this.param = param;
    this.retryAfterSeconds = opts.retryAfterSeconds;
  }

  get type(): ErrorType {
    return ERROR_CODES[this.code];
  }

  /** By brand, as ProviderUnavailableError: one error, whichever copy of this module threw it. */
  static override [Symbol.hasInstance](value: unknown): boolean {
    return typeof value === "object" && value !== null && (value as Record<symbol, unknown>)[SERVICE_ERROR] === true;
  }
}

export function isServiceError(e: unknown): e is ServiceError {
  return e instanceof ServiceError;
}

export const invalidParam = (param: string, message: string) =>
  new ServiceError("parameter_invalid", message, param);

export const resourceMissing = (what: string, id: string, param = "id") =>
  new ServiceError("resource_missing", `No such ${what}: '${id}'`, param);

/** A test helper asked with a live key: whatever it names, the helpers are not there in live mode. */
export const testModeOnly = () =>
  new ServiceError("resource_missing", "Test helpers work in test mode only: call them with a test key (sk_test_… or rk_test_…).", "path");

/** Too many PIN prompts to one phone number lately: shown to a customer as it is, so it says what to do. */
export const promptLimitReached = (retryAfterSeconds: number) =>
  new ServiceError(
    "rate_limited",
    `Too many payment prompts have been sent to this number. Wait ${waitWords(retryAfterSeconds)} before trying again.`,
    "customer.msisdn",
    { retryAfterSeconds },
  );

/** A wait as a customer reads it: seconds under two minutes, whole minutes (rounded up) from there. */
function waitWords(seconds: number): string {
  if (seconds === 1) return "a second";
  return seconds < 120 ? `${seconds} seconds` : `${Math.ceil(seconds / 60)} minutes`;
}

/** A test-mode link or checkout session has taken its minute's payments (consumeTestPagePayment): shown on the page as it is. */
export const testPageLimitReached = (retryAfterSeconds: number) =>
  new ServiceError(
    "rate_limited",
    `This test page has taken many payments in the last minute. Wait ${waitWords(retryAfterSeconds)} before trying again.`,
    undefined,
    { retryAfterSeconds },
  );

/** Payments started on link and checkout pages from one client address: past the minute's budget. */
export const pageAddressLimitReached = (retryAfterSeconds: number) =>
  new ServiceError(
    "rate_limited",
    `Many payments have been started from your network in the last minute. Wait ${waitWords(retryAfterSeconds)} before trying again.`,
    undefined,
    { retryAfterSeconds },
  );

/** A client address that sent too many requests with a missing or invalid API key this minute. */
export const keyFailuresLimited = (retryAfterSeconds: number) =>
  new ServiceError(
    "rate_limited",
    `Too many requests with a missing or invalid API key from this address. Check the key, then retry after the Retry-After interval (${waitWords(retryAfterSeconds)}).`,
    undefined,
    { retryAfterSeconds },
  );

/** Spec rule 4, for payments and for the checkout sessions that share their references. */
export const referenceInUse = (reference: string, holder: "payment" | "checkout session" = "payment") =>
  new ServiceError("reference_in_use", `A ${holder} with reference '${reference}' already exists. Fetch it instead of creating another.`, "reference");

/** The same Idempotency-Key with another request, whether the record is read from the database or from memory. */
export const idempotencyKeyReused = () =>
  new ServiceError(
    "idempotency_key_reused",
    "This Idempotency-Key was already used with a different request. Use a new key for each distinct request.",
    "Idempotency-Key",
  );
