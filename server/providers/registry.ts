import type { ProviderRegistry } from "./port";
import { SandboxProvider } from "./sandbox/client";

// One sandbox per process (kept across dev reloads), so its push log and faults are shared.
const holder = globalThis as unknown as { __mariSandbox?: SandboxProvider };
export const sandbox: SandboxProvider = (holder.__mariSandbox ??= new SandboxProvider());

/**
 * Test mode always charges the sandbox. No live wallet adapter is configured in this build, so
 * live mode is served by the sandbox too; a live adapter plugs in here by network.
 */
export const providers: ProviderRegistry = {
  forPayment: () => sandbox,
};
