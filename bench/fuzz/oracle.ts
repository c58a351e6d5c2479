/**
 * What a fuzz request must get back, worked out from the bytes it sends, and the check of the
 * answer: a 4xx, exactly the spec's error envelope, the status its type maps to, and a
 * Request-Id header equal to the body's request_id (a replay's names the request that first got it).
 */
import { presentedKey } from "@/server/domain/api-keys";
import { ERROR_CODES, type ErrorCode } from "@/server/domain/errors";
import { HTTP_STATUS } from "@/server/http/errors";
import { undocumentedError } from "@/server/openapi";
import type { Operation } from "@/server/schemas/common";
import { malformedPath, type Body, type FuzzRequest, type Keys } from "./requests";

/** DESIGN.md's body limit and the idempotency key's shape, restated: the oracle does not import the code it judges. */
const MAX_BODY_BYTES = 64 * 1024;
const IDEMPOTENCY_KEY = /^[\x21-\x7e]{1,255}$/;
const REQUEST_ID = /^req_[0-9a-z]{26}$/;
const TEST_ACTIONS = new Set(["succeed", "fail", "expire", "unknown", "age"]);

/**
 * Why a request must be refused and, where it can be told, the answer: `status` and `code`, or
 * `orReused` when a key already used by another request of the run would be told that instead
 * (the fuzzer does not follow which keys the server has stored).
 */
export type Expectation = { reasons: string[]; status?: number; code?: ErrorCode; orReused?: boolean };

export function bodyBytes(body: Body): Buffer {
  switch (body.kind) {
    case "none":
      return Buffer.alloc(0);
    case "text":
      return Buffer.from(body.text, "utf8");
    case "bytes":
      return Buffer.from(body.hex, "hex");
    case "huge": {
      const fill = Buffer.from(body.fill, "utf8");
      const head = Buffer.from(body.prefix, "utf8");
      const tail = Buffer.from(body.suffix, "utf8");
      const n = Math.max(0, Math.ceil((body.bytes - head.length - tail.length) / fill.length));
      return Buffer.concat([head, Buffer.alloc(n * fill.length, fill), tail]);
    }
  }
}

/** A header as the server reads it: repeated values joined, surrounding blanks gone. */
export function headerValue(headers: Record<string, string | string[]>, name: string): string | null {
  const v = headers[name];
  if (v === undefined) return null;
  return (Array.isArray(v) ? v.join(", ") : v).replace(/^[ \t]+|[ \t]+$/g, "");
}

/**
 * What the server refuses while reading a parsed body: a NUL (PostgreSQL text cannot hold it),
 * half a UTF-16 surrogate pair (jsonb refuses it, text would store U+FFFD) and a `__proto__` key
 * (an object built from the body would drop it). Iterative: a 64 KB body can nest thousands of
 * levels deep.
 */
function unstorable(root: unknown): string | null {
  // Every high half followed by a low one, every low half preceded by a high one: counted, not matched.
  const wellFormed = (text: string) => {
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i);
      if (c >= 0xd800 && c <= 0xdbff) {
        const next = text.charCodeAt(i + 1);
        if (!(next >= 0xdc00 && next <= 0xdfff)) return false;
        i++;
      } else if (c >= 0xdc00 && c <= 0xdfff) return false;
    }
    return true;
  };
  const stack: unknown[] = [root];
  while (stack.length > 0) {
    const value = stack.pop();
    if (typeof value === "string") {
      if (value.includes("\u0000")) return "NUL in body";
      if (!wellFormed(value)) return "lone surrogate in body";
    } else if (Array.isArray(value)) stack.push(...value);
    else if (value && typeof value === "object") {
      for (const [k, v] of Object.entries(value)) {
        if (k.includes("\u0000")) return "NUL in body";
        if (k === "__proto__") return "__proto__ key in body";
        if (!wellFormed(k)) return "lone surrogate in body";
        stack.push(v);
      }
    }
  }
  return null;
}

/**
 * What is wrong with the body, and at which stage the server finds it: reading it (size, UTF-8,
 * content type, JSON, NUL, lone surrogates, `__proto__`) or validating it. Both come after the
 * Idempotency-Key's own checks.
 */
function bodyProblem(op: Operation, req: FuzzRequest): { stage: "read" | "validate"; reason: string } | null {
  const read = (reason: string) => ({ stage: "read" as const, reason });
  const bytes = bodyBytes(req.body);
  if (bytes.length > MAX_BODY_BYTES) return read("body over 64 KB");
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    return read("body not UTF-8");
  }
  let value: unknown;
  if (text.trim() !== "") {
    const type = (headerValue(req.headers, "content-type") ?? "").split(";")[0]!.trim().toLowerCase();
    if (type !== "application/json") return read("not JSON content type");
    try {
      value = JSON.parse(text);
    } catch {
      return read("body not JSON");
    }
    const refused = unstorable(value);
    if (refused) return read(refused);
  }
  if (op.body) {
    const parsed = op.body.safeParse(value === undefined ? {} : value);
    return parsed.success ? null : { stage: "validate", reason: `body: ${parsed.error.issues[0]?.message ?? "invalid"}` };
  }
  const empty = value === undefined || (value !== null && typeof value === "object" && !Array.isArray(value) && Object.keys(value).length === 0);
  return empty ? null : { stage: "validate", reason: "body on a bodiless operation" };
}

function queryProblem(op: Operation, query: string): string | null {
  const params = new URLSearchParams(query);
  const out: Record<string, string | string[]> = Object.create(null) as Record<string, string | string[]>;
  let any = false;
  for (const [k, v] of params) {
    // Next 16.4.5 drops a `__proto__` query parameter before the handler sees request.url, so
    // the server cannot refuse it; it is no reason for the request to fail.
    if (k === "__proto__") continue;
    any = true;
    if (k.includes("\u0000") || v.includes("\u0000")) return "NUL in query";
    const prev = out[k];
    out[k] = prev === undefined ? v : Array.isArray(prev) ? [...prev, v] : [prev, v];
  }
  if (!op.query) return any ? "query on an operation without one" : null;
  const parsed = op.query.safeParse(out);
  return parsed.success ? null : `query: ${parsed.error.issues[0]?.message ?? "invalid"}`;
}

/**
 * The reasons the request must be refused, checked in the server's own order (auth, scope,
 * query, the Idempotency-Key, reading and validating the body, then the objects named in the
 * path). The first decides the answer, except a path naming nothing, which the service
 * answers and the fuzzer only requires to be a 4xx.
 */
export function expectationFor(op: Operation | undefined, req: FuzzRequest, keys: Keys, realIds: Set<string>): Expectation {
  // proxy.ts answers these before any route (Next cannot route them): 400, whatever else is wrong.
  if (malformedPath(req.path)) return { reasons: ["path is not percent-encoded UTF-8"], status: 400, code: "parameter_invalid" };
  if (!op) return { reasons: ["no route"], status: 404, code: "resource_missing" };
  const reasons: string[] = [];
  let first: { status: number; code: ErrorCode } | undefined;
  let orReused = false;
  const fail = (reason: string, code?: ErrorCode) => {
    reasons.push(reason);
    if (code && !first && reasons.length === 1) first = { status: HTTP_STATUS[ERROR_CODES[code]], code };
  };
  const key = presentedKey(headerValue(req.headers, "authorization"));
  if (key !== keys.key && key !== keys.restricted) fail("not authenticated", "api_key_invalid");
  else if (key === keys.restricted && op.scope !== "payments:read") fail("scope missing", "scope_missing");
  const q = queryProblem(op, req.query);
  if (q) fail(q, "parameter_invalid");
  const idem = op.idempotency !== "none" ? headerValue(req.headers, "idempotency-key") : null;
  if (op.idempotency !== "none") {
    if (idem !== null && idem !== "" && !IDEMPOTENCY_KEY.test(idem)) fail("malformed Idempotency-Key", "parameter_invalid");
    else if (idem === null && op.idempotency === "required") fail("no Idempotency-Key", "idempotency_key_required");
  }
  const b = op.method === "POST" ? bodyProblem(op, req) : null;
  if (b) {
    const decides = reasons.length === 0;
    fail(b.reason, "parameter_invalid");
    // Under a key the run already used with another request: idempotency_key_reused instead.
    if (decides && idem !== null && IDEMPOTENCY_KEY.test(idem)) orReused = true;
  }
  const segments = req.path.split("/");
  const template = op.path.split("/");
  template.forEach((t, i) => {
    if (t === "{id}" && !realIds.has(segments[i]!)) fail("path names no object");
    if (t === "{action}" && !TEST_ACTIONS.has(segments[i]!)) fail("no such test action");
  });
  return { reasons, ...(first ?? {}), ...(orReused ? { orReused } : {}) };
}

export type Answer = { status: number; headers: Record<string, string | string[] | undefined>; body: string };

/** Everything wrong with an answer to a request that had to be refused; empty when it is right. */
export function judge(expect: Expectation, answer: Answer, op?: Operation): string[] {
  const problems: string[] = [];
  if (answer.status >= 500) problems.push(`${answer.status}: a server error`);
  else if (answer.status < 400) problems.push(`${answer.status}: accepted a request that is wrong (${expect.reasons.join("; ")})`);
  if (answer.status === 429) problems.push("429: rate limited (the fuzz run's limits are too low)");
  const type = String(answer.headers["content-type"] ?? "");
  if (!type.startsWith("application/json")) problems.push(`Content-Type ${JSON.stringify(type)}, not JSON`);
  let parsed: unknown;
  try {
    parsed = JSON.parse(answer.body);
  } catch {
    problems.push("body is not JSON");
    return problems;
  }
  problems.push(...envelopeProblems(parsed, answer));
  const undocumented = op && problems.length === 0 ? undocumentedError(op, answer.status, (parsed as { error: { code: string } }).error.code) : null;
  if (undocumented) problems.push(undocumented);
  if (problems.length === 0 && expect.status !== undefined) {
    const code = (parsed as { error: { code: string } }).error.code;
    const reused = expect.orReused && answer.status === 409 && code === "idempotency_key_reused";
    if ((answer.status !== expect.status || code !== expect.code) && !reused) problems.push(`expected ${expect.status} ${expect.code} (${expect.reasons[0]}), got ${answer.status} ${code}`);
  }
  return problems;
}

/** Exactly `{ error: { type, code, message, param?, request_id } }`, consistent with the status and headers. */
export function envelopeProblems(parsed: unknown, answer: Answer): string[] {
  const problems: string[] = [];
  const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === "object" && !Array.isArray(v);
  if (!isObject(parsed) || Object.keys(parsed).join() !== "error" || !isObject(parsed.error)) return ["body is not { error: {…} } alone"];
  const e = parsed.error;
  const allowed = new Set(["type", "code", "message", "param", "request_id"]);
  for (const k of Object.keys(e)) if (!allowed.has(k)) problems.push(`unexpected error.${k}`);
  for (const k of ["type", "code", "message", "request_id"]) if (typeof e[k] !== "string") problems.push(`error.${k} missing or not a string`);
  if ("param" in e && typeof e.param !== "string") problems.push("error.param is not a string");
  if (typeof e.message === "string" && e.message.trim() === "") problems.push("error.message is empty");
  const code = e.code as ErrorCode;
  if (typeof e.code === "string" && !(e.code in ERROR_CODES)) problems.push(`unknown error code ${JSON.stringify(e.code)}`);
  else if (e.type !== ERROR_CODES[code]) problems.push(`type ${String(e.type)} does not go with code ${String(e.code)}`);
  else if (HTTP_STATUS[ERROR_CODES[code]] !== answer.status) problems.push(`status ${answer.status} but type ${String(e.type)} maps to ${HTTP_STATUS[ERROR_CODES[code]]}`);
  if (typeof e.request_id === "string" && !REQUEST_ID.test(e.request_id)) problems.push(`request_id ${JSON.stringify(e.request_id)} is not a request id`);
  // A replay is the first answer byte for byte: its request_id names the first request, the
  // header this one (a key sent again, as a second run of the same seed on one server does).
  const header = answer.headers["request-id"];
  if (answer.headers["idempotent-replayed"] === "true") {
    if (typeof header !== "string" || !REQUEST_ID.test(header)) problems.push(`Request-Id header ${JSON.stringify(header)} of a replay is not a request id`);
  } else if (header !== e.request_id) problems.push(`Request-Id header ${JSON.stringify(header)} ≠ request_id ${JSON.stringify(e.request_id)}`);
  return problems;
}
