import { describe, expect, it } from "vitest";
import { ProviderUnavailableError, type PushRequest } from "../port";
import { SandboxProvider, sandboxReference } from "./client";

const request = (msisdn: string, key = "pay_x"): PushRequest => ({
  idempotencyKey: key,
  msisdn,
  amount: 1000,
  currency: "USD",
  reference: "r",
  expiresAt: new Date(Date.now() + 180_000),
});

describe("sandbox push", () => {
  it("accepts ordinary numbers with a reference derived from our idempotency key", async () => {
    const sandbox = new SandboxProvider();
    const a = await sandbox.push(request("263771234567", "pay_a"), AbortSignal.timeout(1_000));
    const again = await sandbox.push(request("263771234567", "pay_a"), AbortSignal.timeout(1_000));
    expect(a).toEqual({ outcome: "accepted", providerReference: sandboxReference("pay_a") });
    expect(again).toEqual(a);
    expect(sandbox.pushCalls("pay_a")).toBe(2);
    expect(sandboxReference("pay_b")).not.toBe(sandboxReference("pay_a"));
  });

  it("refuses …06 at push", async () => {
    const result = await new SandboxProvider().push(request("263770000006"), AbortSignal.timeout(1_000));
    expect(result).toMatchObject({ outcome: "rejected", failureCode: "push_rejected" });
  });

  it("answers …04 too late: the caller's timeout fires", async () => {
    const started = Date.now();
    await expect(new SandboxProvider().push(request("263770000004"), AbortSignal.timeout(100))).rejects.toBeInstanceOf(ProviderUnavailableError);
    expect(Date.now() - started).toBeGreaterThanOrEqual(90);
  });

  it("fails like a broken connection when told to", async () => {
    const sandbox = new SandboxProvider();
    sandbox.faults.push = "error";
    await expect(sandbox.push(request("263771234567"), AbortSignal.timeout(1_000))).rejects.toBeInstanceOf(ProviderUnavailableError);
  });
});
