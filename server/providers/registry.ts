import { createHmac } from "node:crypto";
import { dataKey } from "@/server/data-key";
import { env } from "@/server/env";
import type { ProviderRegistry, WalletProvider } from "./port";
import { SandboxProvider } from "./sandbox/client";

// One sandbox per process (kept across dev reloads), so its push log, faults and callback sink
// are shared by everything in the process.
const holder = globalThis as unknown as { __mariSandbox?: SandboxProvider };

/**
 * What the sandbox signs its callbacks with: SANDBOX_CALLBACK_SECRET, or one made from the data
 * key, the same on every instance that shares it. Never a value written in the source: live mode is
 * served by the sandbox in this build, and anyone who could sign a callback could mark their own
 * live payment paid.
 */
export function callbackSecret(): string {
  return env().SANDBOX_CALLBACK_SECRET ?? createHmac("sha256", dataKey()).update("mari sandbox callback secret").digest("base64url");
}

function createSandbox(): SandboxProvider {
  const s = new SandboxProvider();
  s.secret = callbackSecret();
  s.delayScale = env().SANDBOX_DELAY_SCALE;
  return s;
}

export const sandbox: SandboxProvider = (holder.__mariSandbox ??= createSandbox());

const BY_NAME: Record<string, WalletProvider> = { sandbox };

/**
 * Test mode always charges the sandbox. No live wallet adapter is configured in this build, so
 * live mode is served by the sandbox too; a live adapter plugs in here by network.
 */
export const providers: ProviderRegistry = {
  forPayment: () => sandbox,
  byName: (name) => (Object.hasOwn(BY_NAME, name) ? BY_NAME[name] : undefined),
};
