import { expect } from "vitest";
import { ServiceError } from "@/server/domain/errors";
import type { ApiResponse } from "./api";

const REQUEST_ID = /^req_[0-9a-z]{26}$/;

/** The whole error envelope: exactly `{ error: { type, code, message, param?, request_id } }`. */
export function expectError(res: ApiResponse<any>, status: number, type: string, code: string, param?: string) {
  expect({ status: res.status, body: res.body }).toMatchObject({ status, body: { error: { type, code } } });
  const requestId = res.headers.get("request-id");
  expect(requestId).toMatch(REQUEST_ID);
  expect(Object.keys(res.body)).toEqual(["error"]);
  const err = res.body.error;
  expect(Object.keys(err).sort()).toEqual(param === undefined ? ["code", "message", "request_id", "type"] : ["code", "message", "param", "request_id", "type"]);
  expect(err.request_id).toBe(requestId);
  expect(typeof err.message).toBe("string");
  expect(err.message.length).toBeGreaterThan(0);
  if (param !== undefined) expect(err.param).toBe(param);
  expect(res.headers.get("content-type")).toMatch(/^application\/json/);
  return err as { type: string; code: string; message: string; param?: string; request_id: string };
}

/** The ServiceError a service call is refused with (fails the test if it resolves or throws anything else). */
export async function serviceRefusal(call: Promise<unknown>): Promise<ServiceError> {
  const e = await call.then(
    () => null,
    (err: unknown) => err,
  );
  expect(e).toBeInstanceOf(ServiceError);
  return e as ServiceError;
}
