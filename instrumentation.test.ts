import { afterEach, expect, it, vi } from "vitest";
import { setEnv } from "@/server/testing/env";

let restore: (() => void) | undefined;
afterEach(() => {
  vi.restoreAllMocks();
  restore?.();
  restore = undefined;
  vi.resetModules();
});

// Modules of the server read the configuration as they load (the provider registry signs with a
// secret made from it): a bad value then throws while the boot code is imported, not only once it
// runs. Either way the process must end with the reason, not stay up answering every request 500.
it("a configuration the server cannot run with ends the process with its reason, even when it throws as the boot code loads", async () => {
  restore = setEnv({ NEXT_RUNTIME: "nodejs", PROVIDER_PUSH_TIMEOUT_MS: "30000" });
  const exit = vi.spyOn(process, "exit").mockImplementation((() => undefined) as never);
  const stderr = vi.spyOn(process.stderr, "write").mockImplementation(() => true);
  vi.resetModules(); // a process starting: no module of the server loaded yet
  const { register } = await import("./instrumentation");

  await register();

  expect(exit).toHaveBeenCalledWith(1);
  const said = stderr.mock.calls.map(([chunk]) => String(chunk)).join("");
  expect(said).toContain("Mari could not start: Invalid configuration");
  expect(said).toContain("PROVIDER_PUSH_TIMEOUT_MS: must be at most 20000");
});
