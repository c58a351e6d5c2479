import { createHmac } from "node:crypto";
import { describe, expect, it } from "vitest";
import { signPayload, signatureHeader, verifySignatureHeader } from "./signatures";

const body = '{"id":"evt_1","type":"payment.succeeded"}';
const now = new Date("2026-06-01T12:00:00Z");
const t = Math.floor(now.getTime() / 1000);

describe("signatures", () => {
  it("is the HMAC-SHA256 of t.body keyed with the secret string as given", () => {
    const expected = createHmac("sha256", "whsec_abc").update(`${t}.${body}`).digest("hex");
    expect(signPayload("whsec_abc", t, body)).toBe(expected);
    expect(signatureHeader(["whsec_abc"], t, body)).toBe(`t=${t},v1=${expected}`);
  });

  it("verifies a fresh signature and carries one v1 per secret during a roll", () => {
    const header = signatureHeader(["new_secret", "old_secret"], t, body);
    expect(header.match(/v1=/g)).toHaveLength(2);
    expect(verifySignatureHeader(header, body, ["old_secret"], now)).toBe(true);
    expect(verifySignatureHeader(header, body, ["new_secret"], now)).toBe(true);
  });

  it.each([
    ["another secret", signatureHeader(["other"], t, body), body, now],
    ["a changed body", signatureHeader(["s"], t, body), body.replace("1", "2"), now],
    ["a stale timestamp", signatureHeader(["s"], t - 301, body), body, now],
    ["a future timestamp", signatureHeader(["s"], t + 301, body), body, now],
    ["no v1", `t=${t}`, body, now],
    ["garbage", "nonsense", body, now],
    ["an uppercase digest", signatureHeader(["s"], t, body).toUpperCase(), body, now],
  ])("refuses %s", (_name, header, raw, at) => {
    expect(verifySignatureHeader(header, raw, ["s"], at)).toBe(false);
  });

  it("accepts a timestamp at the edge of the tolerance", () => {
    expect(verifySignatureHeader(signatureHeader(["s"], t - 300, body), body, ["s"], now)).toBe(true);
    expect(verifySignatureHeader(null, body, ["s"], now)).toBe(false);
  });
});
