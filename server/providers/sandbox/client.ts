import { createHash } from "node:crypto";
import { ProviderUnavailableError, type PushRequest, type PushResult, type WalletProvider } from "../port";
import { sandboxBehaviour } from "./behaviour";

/** Misbehaviour a test can switch on, as a real provider's outages would. */
export type SandboxFaults = {
  /** `timeout`: the push hangs until the caller gives up; `error`: the connection fails. */
  push: "none" | "timeout" | "error";
  /** Added latency on every push, in ms. */
  pushLatencyMs: number;
};

const MAX_TRACKED = 100_000;

/**
 * A wallet provider that behaves like one: it dedupes pushes on our idempotency key and answers
 * from the number table. Its references are derived from the key, so a restart of our process
 * changes nothing it would answer.
 */
export class SandboxProvider implements WalletProvider {
  readonly name = "sandbox";
  faults: SandboxFaults = { push: "none", pushLatencyMs: 0 };
  /** Push calls received per idempotency key: the provider's own log, read by tests. */
  private readonly calls = new Map<string, number>();

  pushCalls(idempotencyKey: string): number {
    return this.calls.get(idempotencyKey) ?? 0;
  }

  resetFaults(): void {
    this.faults = { push: "none", pushLatencyMs: 0 };
  }

  async push(request: PushRequest, signal: AbortSignal): Promise<PushResult> {
    this.record(request.idempotencyKey);
    if (this.faults.pushLatencyMs > 0) await delay(this.faults.pushLatencyMs, signal);
    const behaviour = sandboxBehaviour(request.msisdn);
    // …04 is a provider that takes the prompt but answers too late: the caller times out.
    if (this.faults.push === "timeout" || behaviour === "times_out_then_succeeds") await delay(Number.POSITIVE_INFINITY, signal);
    if (this.faults.push === "error") throw new ProviderUnavailableError("sandbox: connection reset");

    const providerReference = sandboxReference(request.idempotencyKey);
    if (behaviour === "rejected_at_push") {
      return {
        outcome: "rejected",
        providerReference,
        failureCode: "push_rejected",
        message: "The wallet provider refused the payment prompt for this number.",
      };
    }
    return { outcome: "accepted", providerReference };
  }

  private record(key: string): void {
    this.calls.set(key, (this.calls.get(key) ?? 0) + 1);
    if (this.calls.size > MAX_TRACKED) {
      const oldest = this.calls.keys().next().value;
      if (oldest !== undefined) this.calls.delete(oldest);
    }
  }
}

export function sandboxReference(idempotencyKey: string): string {
  return `SBX${createHash("sha256").update(idempotencyKey).digest("hex").slice(0, 20).toUpperCase()}`;
}

function delay(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(new ProviderUnavailableError("sandbox: push timed out"));
    const timer = Number.isFinite(ms) ? setTimeout(resolve, ms) : undefined;
    signal.addEventListener(
      "abort",
      () => {
        clearTimeout(timer);
        reject(new ProviderUnavailableError("sandbox: push timed out"));
      },
      { once: true },
    );
  });
}
