import { describe, expect, it } from "vitest";
import { manualClock } from "@/server/clock";
import { newId } from "@/server/domain/ids";
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

describe("sandbox refunds", () => {
  const refundRequest = (paymentId: string, refundId: string) => ({
    idempotencyKey: refundId,
    paymentId,
    paymentProviderReference: null,
    msisdn: "263770000001",
    amount: 500,
    currency: "USD" as const,
  });

  it("takes a refund once however often it is submitted, and settles it about 2 s × delayScale after its id's time", async () => {
    const sandbox = new SandboxProvider();
    const t0 = new Date();
    const refundId = newId("refund", t0);
    const first = await sandbox.refund(refundRequest("pay_a", refundId), AbortSignal.timeout(1_000));
    expect(first).toEqual({ outcome: "accepted", providerReference: sandboxReference(refundId) });
    expect(await sandbox.refund(refundRequest("pay_a", refundId), AbortSignal.timeout(1_000))).toEqual(first);
    expect(sandbox.refundCalls(refundId)).toBe(2);
    expect(sandbox.refundsTaken("pay_a")).toEqual([refundId]);

    const clock = manualClock(new Date(t0.getTime() + 1_999));
    sandbox.clock = clock;
    const ask = (msisdn: string) => sandbox.queryRefund({ idempotencyKey: refundId, providerReference: null, msisdn }, AbortSignal.timeout(1_000));
    expect(await ask("263770000001")).toEqual({ kind: "pending" });
    clock.advance(1);
    expect(await ask("263770000001")).toEqual({ kind: "succeeded" });
    expect(await ask("263770000007")).toMatchObject({ kind: "failed", failureCode: "refund_declined" });
    sandbox.delayScale = 3;
    expect(await ask("263770000001")).toEqual({ kind: "pending" });
  });

  it("switches its refund API off, loses answers, or refuses when told to", async () => {
    const sandbox = new SandboxProvider();
    const refundId = newId("refund");
    sandbox.faults.refund = "error";
    await expect(sandbox.refund(refundRequest("pay_b", refundId), AbortSignal.timeout(1_000))).rejects.toBeInstanceOf(ProviderUnavailableError);
    await expect(sandbox.queryRefund({ idempotencyKey: refundId, providerReference: null, msisdn: "263770000001" }, AbortSignal.timeout(1_000))).rejects.toBeInstanceOf(
      ProviderUnavailableError,
    );
    expect(sandbox.refundCalls(refundId)).toBe(0);

    sandbox.faults.refund = "timeout";
    await expect(sandbox.refund(refundRequest("pay_b", refundId), AbortSignal.timeout(50))).rejects.toBeInstanceOf(ProviderUnavailableError);
    expect(sandbox.refundsTaken("pay_b")).toEqual([refundId]);

    sandbox.faults.refund = "rejected";
    const other = newId("refund");
    expect(await sandbox.refund(refundRequest("pay_c", other), AbortSignal.timeout(1_000))).toMatchObject({ outcome: "rejected", failureCode: "refund_rejected" });
    expect(sandbox.refundsTaken("pay_c")).toEqual([]);
  });
});
