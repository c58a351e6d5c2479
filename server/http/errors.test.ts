import { describe, expect, it } from "vitest";
import { ERROR_CODES, ERROR_TYPES, ServiceError, type ErrorCode } from "@/server/domain/errors";
import { HTTP_STATUS, errorBody, otherVersionOf, statusOf } from "./errors";

// The spec's codes (§7) and the HTTP status of their type, as DESIGN.md assigns them.
const SPEC: Record<string, [string, number]> = {
  parameter_invalid: ["invalid_request", 400],
  idempotency_key_required: ["invalid_request", 400],
  idempotency_key_reused: ["idempotency_conflict", 409],
  request_in_progress: ["idempotency_conflict", 409],
  reference_in_use: ["invalid_request", 400],
  msisdn_invalid: ["invalid_request", 400],
  resource_missing: ["not_found", 404],
  link_expired: ["invalid_request", 400],
  link_used: ["invalid_request", 400],
  refund_amount_invalid: ["invalid_request", 400],
  checkout_session_closed: ["invalid_request", 400],
  payment_in_progress: ["invalid_request", 400],
  rate_limited: ["rate_limited", 429],
  internal: ["api_error", 500],
};

describe("error table", () => {
  it("has every code of the spec with its type and status", () => {
    for (const [code, [type, status]] of Object.entries(SPEC)) {
      expect(ERROR_CODES[code as ErrorCode], code).toBe(type);
      expect(statusOf(new ServiceError(code as ErrorCode, "x")), code).toBe(status);
    }
  });

  it("maps every type of the spec's types table to its status", () => {
    expect(HTTP_STATUS).toEqual({
      invalid_request: 400,
      authentication_error: 401,
      permission_error: 403,
      not_found: 404,
      idempotency_conflict: 409,
      rate_limited: 429,
      api_error: 500,
    });
    expect([...ERROR_TYPES].sort()).toEqual(Object.keys(HTTP_STATUS).sort());
  });

  it("gives the authentication and permission codes the spec's types", () => {
    expect(statusOf(new ServiceError("api_key_invalid", "x"))).toBe(401);
    expect(statusOf(new ServiceError("scope_missing", "x"))).toBe(403);
  });

  it("builds exactly the envelope, with param only when there is one", () => {
    expect(errorBody(new ServiceError("parameter_invalid", "Bad amount.", "amount"), "req_1")).toEqual({
      error: { type: "invalid_request", code: "parameter_invalid", message: "Bad amount.", param: "amount", request_id: "req_1" },
    });
    expect(Object.keys(errorBody(new ServiceError("internal", "x"), "req_2").error)).toEqual(["type", "code", "message", "request_id"]);
  });
});

describe("a path naming another version of the API", () => {
  it("is the same path under /v1; /v1's own paths and the site's are not", () => {
    expect(otherVersionOf("/v2/payments")).toBe("/v1/payments");
    expect(otherVersionOf("/V1/payments/pay_x")).toBe("/v1/payments/pay_x");
    expect(otherVersionOf("/v1.1/refunds")).toBe("/v1/refunds");
    expect(otherVersionOf("/v10")).toBe("/v1");
    for (const path of ["/v1", "/v1/payments", "/vendors", "/pay/plink_x", "/", "/api/health"]) expect(otherVersionOf(path), path).toBeNull();
  });
});
