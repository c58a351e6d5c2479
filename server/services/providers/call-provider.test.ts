import { describe, expect, it, vi } from "vitest";
import { ProviderUnavailableError, type WalletProvider } from "@/server/providers/port";
import { callProvider } from "./call-provider";

const provider = { name: "test" } as unknown as WalletProvider;

describe("callProvider", () => {
  it("ends its deadline with the call: no timer is left behind by a fast answer", async () => {
    // A timer left running would hold the request's async context until the deadline.
    const started: NodeJS.Timeout[] = [];
    const real = globalThis.setTimeout;
    const spy = vi.spyOn(globalThis, "setTimeout").mockImplementation(((fn: () => void, ms?: number) => {
      const t = real(fn, ms);
      started.push(t);
      return t;
    }) as typeof setTimeout);
    try {
      expect(await callProvider(provider, async () => "ok", { timeoutMs: 60_000, what: "push", about: {} })).toBe("ok");
    } finally {
      spy.mockRestore();
    }
    expect(started).toHaveLength(1);
    expect((started[0] as unknown as { _destroyed: boolean })._destroyed).toBe(true);
  });

  it("aborts the call's signal at the deadline, and a provider that gives up is unavailable", async () => {
    let reason: unknown;
    const result = await callProvider(
      provider,
      (_p, signal) =>
        new Promise((_resolve, reject) =>
          signal.addEventListener("abort", () => {
            reason = signal.reason;
            reject(new ProviderUnavailableError("timed out"));
          }),
        ),
      { timeoutMs: 10, what: "push", about: {} },
    );
    expect(result).toBe("unavailable");
    expect((reason as DOMException).name).toBe("TimeoutError");
  });

  it("lets errors that are not the provider's propagate", async () => {
    await expect(callProvider(provider, async () => Promise.reject(new TypeError("ours")), { timeoutMs: 1_000, what: "push", about: {} })).rejects.toThrow("ours");
  });
});
