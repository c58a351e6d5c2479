import { describe, expect, it } from "vitest";
import { envelopeProblems, type Answer } from "./oracle";

const FIRST = "req_01m8k3xzhyc7d36fe4xkkrx6fq";
const RETRY = "req_01m8k3zc0f70bvy6e64a31p1ce";
const body = { error: { type: "not_found", code: "resource_missing", message: "No such payment link: 'x'", param: "id", request_id: FIRST } };
const answer = (headers: Answer["headers"]): Answer => ({ status: 404, headers, body: JSON.stringify(body) });

describe("envelopeProblems: the Request-Id header against the body's request_id", () => {
  it("a first answer carries its own request id in both", () => {
    expect(envelopeProblems(body, answer({ "request-id": FIRST }))).toEqual([]);
    expect(envelopeProblems(body, answer({ "request-id": RETRY }))).toEqual([`Request-Id header "${RETRY}" ≠ request_id "${FIRST}"`]);
    expect(envelopeProblems(body, answer({}))).toEqual([`Request-Id header undefined ≠ request_id "${FIRST}"`]);
  });

  it("a replay's body names the first request and its header the retry; the header must still be a request id", () => {
    expect(envelopeProblems(body, answer({ "request-id": RETRY, "idempotent-replayed": "true" }))).toEqual([]);
    expect(envelopeProblems(body, answer({ "idempotent-replayed": "true" }))).toEqual(["Request-Id header undefined of a replay is not a request id"]);
    expect(envelopeProblems(body, answer({ "request-id": "abc", "idempotent-replayed": "true" }))).toEqual(['Request-Id header "abc" of a replay is not a request id']);
  });
});
