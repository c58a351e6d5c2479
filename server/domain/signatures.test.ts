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

  it("matches known-answer vectors computed outside this code (openssl dgst -sha256 -hmac)", () => {
    const raw = '{"id":"evt_test","object":"event"}';
    const vectors: [secret: string, body: string, hex: string][] = [
      ["whsec_test_secret", raw, "d2bbf379811dab6c152c152084ca7753ada8839e7528ed5cdf70eff429cf16c7"],
      ["whsec_other", raw, "af529a1a3b35dc36bb08465f885690a2d908620a17e036be9e6d9f1e84514d39"],
      ["whsec_test_secret", "", "2101ed4de13a3847b9130080a81eb77b7a3727702e4665f5d4fc9fb89133b2e2"],
    ];
    const at = new Date(1_767_225_600_000);
    for (const [secret, b, hex] of vectors) {
      expect(signPayload(secret, 1_767_225_600, b)).toBe(hex);
      expect(verifySignatureHeader(`t=1767225600,v1=${hex}`, b, [secret], at)).toBe(true);
    }
  });

  it("accepts ±300 s and refuses ±301 s, wherever in the second now falls", () => {
    for (const offset of [-300, 300]) expect(verifySignatureHeader(signatureHeader(["s"], t + offset, body), body, ["s"], now)).toBe(true);
    for (const offset of [-301, 301]) expect(verifySignatureHeader(signatureHeader(["s"], t + offset, body), body, ["s"], now)).toBe(false);
    const lateInSecond = new Date(now.getTime() + 999);
    expect(verifySignatureHeader(signatureHeader(["s"], t - 300, body), body, ["s"], lateInSecond)).toBe(true);
    expect(verifySignatureHeader(signatureHeader(["s"], t - 301, body), body, ["s"], lateInSecond)).toBe(false);
  });

  it("verifies nothing with an empty secret, even a header signed with one", () => {
    const header = signatureHeader([""], t, body);
    expect(verifySignatureHeader(header, body, [""], now)).toBe(false);
    expect(verifySignatureHeader(header, body, [], now)).toBe(false);
    expect(verifySignatureHeader(signatureHeader(["s"], t, body), body, ["", "s"], now)).toBe(true);
  });

  it("accepts a timestamp at the edge of the tolerance", () => {
    expect(verifySignatureHeader(signatureHeader(["s"], t - 300, body), body, ["s"], now)).toBe(true);
    expect(verifySignatureHeader(null, body, ["s"], now)).toBe(false);
  });
});
