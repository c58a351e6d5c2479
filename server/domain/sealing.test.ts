import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { isSealed, parseDataKey, seal, unseal } from "./sealing";

describe("sealing", () => {
  const key = randomBytes(32);

  it("round-trips, with a fresh nonce each time, and shows nothing of the plaintext", () => {
    const secret = "whsec_0123456789abcdef0123456789abcdef";
    const [a, b] = [seal(key, secret), seal(key, secret)];
    expect(a).not.toBe(b);
    for (const s of [a, b]) {
      expect(isSealed(s)).toBe(true);
      expect(s).not.toContain("0123456789abcdef");
      expect(unseal(key, s)).toBe(secret);
    }
  });

  it("refuses a value sealed under another key, or altered in any part", () => {
    const sealed = seal(key, "whsec_x");
    expect(() => unseal(randomBytes(32), sealed)).toThrow();
    const [nonce, body, tag] = sealed.slice("sealed:v1:".length).split(".") as [string, string, string];
    const flip = (s: string) => (s[0] === "A" ? "B" : "A") + s.slice(1);
    for (const altered of [`sealed:v1:${flip(nonce)}.${body}.${tag}`, `sealed:v1:${nonce}.${flip(body)}.${tag}`, `sealed:v1:${nonce}.${body}.${flip(tag)}`, `sealed:v1:${nonce}.${body}`]) {
      expect(() => unseal(key, altered)).toThrow();
    }
  });

  it("reads a value stored before sealing as it is", () => {
    expect(unseal(key, "whsec_legacy")).toBe("whsec_legacy");
    expect(unseal(key, '{"id":"we_1"}')).toBe('{"id":"we_1"}');
  });

  it("takes a data key as 64 hex digits or base64, 32 bytes exactly", () => {
    const raw = randomBytes(32);
    expect(parseDataKey(raw.toString("hex"))).toEqual(raw);
    expect(parseDataKey(raw.toString("base64"))).toEqual(raw);
    expect(parseDataKey(`${raw.toString("base64url")}\n`)).toEqual(raw);
    expect(parseDataKey(randomBytes(16).toString("hex"))).toBeNull();
    expect(parseDataKey("not a key")).toBeNull();
  });
});
