import { describe, expect, it } from "vitest";
import { displayPrefix, generateKey, hashKey, keyAllows, parseKey, presentedKey } from "./api-keys";

describe("API keys", () => {
  it("generates keys whose shape tells kind and environment", () => {
    const live = generateKey("secret", true);
    expect(live.secret).toMatch(/^sk_live_[0-9a-z]{32}$/);
    expect(parseKey(live.secret)).toEqual({ kind: "secret", livemode: true });
    const restricted = generateKey("restricted", false);
    expect(restricted.secret).toMatch(/^rk_test_/);
    expect(parseKey(restricted.secret)).toEqual({ kind: "restricted", livemode: false });
  });

  it("stores only a hash and a display prefix that do not reveal the key", () => {
    const k = generateKey("secret", false);
    expect(k.hash).toBe(hashKey(k.secret));
    expect(k.hash).not.toContain(k.secret.slice(8));
    expect(k.displayPrefix).toBe(`sk_test_…${k.secret.slice(-4)}`);
    expect(displayPrefix("rk_live_abcdefghijabcdefghijabcdefghijkl")).toBe("rk_live_…ijkl");
  });

  it.each(["", "sk_test_", "sk_test_short", "pk_test_" + "a".repeat(32), "sk_prod_" + "a".repeat(32), "sk_test_" + "A".repeat(32), " sk_test_" + "a".repeat(32)])(
    "refuses the malformed key %j",
    (k) => expect(parseKey(k)).toBeNull(),
  );

  it("grants every scope to full keys and only listed scopes to restricted keys", () => {
    expect(keyAllows("secret", [], "refunds:write")).toBe(true);
    expect(keyAllows("restricted", ["payments:read"], "payments:read")).toBe(true);
    expect(keyAllows("restricted", ["payments:read"], "payments:write")).toBe(false);
  });

  it("reads the key from a Bearer header or from HTTP Basic's user name", () => {
    const key = "sk_test_" + "a".repeat(32);
    expect(presentedKey(`Bearer ${key}`)).toBe(key);
    expect(presentedKey(`bearer  ${key} `)).toBe(key);
    expect(presentedKey(`Basic ${Buffer.from(`${key}:`).toString("base64")}`)).toBe(key);
    expect(presentedKey(null)).toBeNull();
    expect(presentedKey("")).toBeNull();
    expect(presentedKey(`Token ${key}`)).toBe("");
    expect(presentedKey(`Bearer ${key} extra`)).toBe("");
  });
});
