import { afterEach, describe, expect, it } from "vitest";
import { findPayment } from "./prepared";
import { getDb } from "@/db/client";
import { sandbox } from "@/server/providers/registry";
import { seedTestMerchant, uniqueRef } from "@/server/testing/fixtures";
import { sandboxWith } from "@/server/testing/providers";
import { createPayment } from "./create-payment";

/** The process dies right after the provider has taken the push, before its answer is recorded. */
const dyingAfterPush = sandboxWith({
  push: async (request, signal) => {
    await sandbox.push(request, signal);
    throw new Error("process killed before the provider's answer was recorded");
  },
});

/** The process dies before its push reaches the provider. */
const dyingBeforePush = sandboxWith({
  push: async () => {
    throw new Error("process killed before the push was sent");
  },
});

/** A provider that refuses a copy of a push it took (it does not dedupe its refusals). */
const refusingCopies = sandboxWith({
  push: async (request, signal) => {
    if (sandbox.pushCalls(request.idempotencyKey) > 0) {
      return { outcome: "rejected", providerReference: null, failureCode: "push_rejected", message: "Duplicate payment request." };
    }
    return sandbox.push(request, signal);
  },
});

describe("a create retried after its request died mid-push", () => {
  afterEach(() => sandbox.resetFaults());

  it("whose push the provider refuses as a copy: asked, the provider has the prompt out, so the payment waits for the PIN, not failed", async () => {
    const m = await seedTestMerchant();
    const ctx = await m.ctx();
    const input = { amount: 1_000, currency: "USD", method: "wallet", msisdn: "0771234567", reference: uniqueRef("retry"), idempotencyKey: uniqueRef("key") } as const;
    await expect(createPayment({ ...ctx, providers: dyingAfterPush }, input)).rejects.toThrow(/process killed/);

    const retried = await createPayment({ ...ctx, providers: refusingCopies }, input);
    expect(retried).toMatchObject({ status: "awaiting_customer" });
    expect(retried.promptSentAt).not.toBeNull();
    expect(sandbox.pushCalls(retried.id)).toBe(1);
    expect(await findPayment(await getDb(), retried.id)).toMatchObject({ status: "awaiting_customer", promptSentAt: retried.promptSentAt });
  });

  it("whose push is refused and whose provider cannot say where it stands: unknown, never failed", async () => {
    const m = await seedTestMerchant();
    const ctx = await m.ctx();
    const input = { amount: 1_000, currency: "USD", method: "wallet", msisdn: "263770000005", reference: uniqueRef("retry"), idempotencyKey: uniqueRef("key") } as const;
    await expect(createPayment({ ...ctx, providers: dyingAfterPush }, input)).rejects.toThrow(/process killed/);
    expect(await createPayment({ ...ctx, providers: refusingCopies }, input)).toMatchObject({ status: "unknown" });
  });

  it("whose push is refused when the provider holds no push with its key: no prompt went out, so it fails at once with the refusal", async () => {
    const m = await seedTestMerchant();
    const ctx = await m.ctx();
    const input = { amount: 1_000, currency: "USD", method: "wallet", msisdn: "263770000006", reference: uniqueRef("retry"), idempotencyKey: uniqueRef("key") } as const;
    await expect(createPayment({ ...ctx, providers: dyingBeforePush }, input)).rejects.toThrow(/process killed/);
    const retried = await createPayment(ctx, input);
    expect(retried).toMatchObject({ status: "failed", failureCode: "push_rejected" });
    expect(sandbox.pushCalls(retried.id)).toBe(1); // the retry's, refused
  });

  it("a first push refused fails the payment at once, without asking", async () => {
    const m = await seedTestMerchant();
    const ctx = await m.ctx();
    const input = { amount: 1_000, currency: "USD", method: "wallet", msisdn: "263770000006", reference: uniqueRef("first"), idempotencyKey: uniqueRef("key") } as const;
    let asked = 0;
    const counting = sandboxWith({
      queryStatus: (...args) => {
        asked++;
        return sandbox.queryStatus(...args);
      },
    });
    expect(await createPayment({ ...ctx, providers: counting }, input)).toMatchObject({ status: "failed", failureCode: "push_rejected" });
    expect(asked).toBe(0);
  });
});
