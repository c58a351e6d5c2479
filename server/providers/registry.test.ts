import { describe, expect, it } from "vitest";
import { setEnv } from "@/server/testing/env";
import { callbackSecret, sandbox } from "./registry";
import { SandboxProvider } from "./sandbox/client";

describe("the sandbox's callback secret", () => {
  it("is made from the data key when not set: the same for every instance sharing the key, and no value in the source", () => {
    const back = setEnv({ SANDBOX_CALLBACK_SECRET: undefined });
    try {
      expect(callbackSecret()).toBe(callbackSecret());
      expect(callbackSecret().length).toBeGreaterThanOrEqual(32);
      expect(callbackSecret()).not.toMatch(/test|sandbox/);
      expect(sandbox.secret).toBe(callbackSecret());
    } finally {
      back();
    }
  });

  it("is SANDBOX_CALLBACK_SECRET when set (callbacks signed from outside: the soak)", () => {
    const back = setEnv({ SANDBOX_CALLBACK_SECRET: "a-secret-from-outside-0123456789" });
    try {
      expect(callbackSecret()).toBe("a-secret-from-outside-0123456789");
    } finally {
      back();
    }
  });

  it("is a sandbox's own when made alone, so a forged callback signed with a guess is refused", () => {
    const a = new SandboxProvider();
    const b = new SandboxProvider();
    expect(a.secret).not.toBe(b.secret);
    const body = JSON.stringify({ merchant_tx_id: "pay_x", transaction_ref: "r", amount: 1, currency: "USD", status: "SUCCESS" });
    const signed = a.signedCallback(JSON.parse(body) as Record<string, unknown>);
    expect(a.verifyCallback(signed.headers, signed.rawBody, new Date())).toBe(true);
    expect(b.verifyCallback(signed.headers, signed.rawBody, new Date())).toBe(false);
  });
});
