import { randomBytes } from "node:crypto";
import { and, eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { getDb } from "@/db/client";
import { idempotencyKeys, payments, type Payment } from "@/db/schema";
import { systemClock } from "@/server/clock";
import { claimIdempotencyKey, type OwnedKey } from "@/server/http/idempotency";
import type { Completion, ResponseRecord } from "@/server/services/idempotency/completion";
import { seedAwaitingPayment, seedTestMerchant, type TestMerchant } from "@/server/testing/fixtures";
import { recordPromptSent } from "./prepared";

/** A waiting payment whose prompt is not recorded yet, and an idempotency record this request holds. */
async function setUp(m: TestMerchant) {
  const db = await getDb();
  const seeded = await seedAwaitingPayment(m);
  const [payment] = await db.update(payments).set({ promptSentAt: null }).where(eq(payments.id, seeded.id)).returning();
  const key = `k-${randomBytes(6).toString("hex")}`;
  const claim = await claimIdempotencyKey({ db, clock: systemClock }, { merchantId: m.merchant.id, livemode: false }, key, "fingerprint");
  if (claim.kind !== "owned") throw new Error("the key should be new");
  const stored: Completion[] = [];
  const response: ResponseRecord<Payment> = {
    completionFor: (p) => (claim as OwnedKey).completion(201, JSON.stringify({ id: p.id, provider_reference: p.providerReference })),
    completedWith: (c) => stored.push(c),
  };
  const record = async () =>
    (await db.select().from(idempotencyKeys).where(and(eq(idempotencyKeys.merchantId, m.merchant.id), eq(idempotencyKeys.key, key))))[0]!;
  const row = async () => (await db.select().from(payments).where(eq(payments.id, payment!.id)))[0]!;
  return { db, payment: payment!, key, response, stored, record, row };
}

describe("recordPromptSent with the request's idempotency record", () => {
  let m: TestMerchant;
  beforeAll(async () => {
    m = await seedTestMerchant();
  });

  it("records the prompt and stores the response in the same statement", async () => {
    const { db, payment, response, stored, record, row } = await setUp(m);
    const at = new Date();
    const updated = await recordPromptSent(db, payment, at, "SBX-1", response);

    expect(updated).toMatchObject({ id: payment.id, promptSentAt: at, providerReference: "SBX-1" });
    expect((await row()).providerReference).toBe("SBX-1");
    expect(stored).toHaveLength(1);
    const kept = await record();
    expect(kept).toMatchObject({ state: "completed", responseStatus: 201 });
    expect(kept.responseBody).toBe(JSON.stringify({ id: payment.id, provider_reference: "SBX-1" }));
    expect(stored[0]!.sent).toBe(kept.responseBody);
  });

  it("stores nothing when the prompt was already recorded: the record stays the request's to complete", async () => {
    const { db, payment, response, stored, record, row } = await setUp(m);
    const first = new Date();
    await db.update(payments).set({ promptSentAt: first, providerReference: "SBX-FIRST" }).where(eq(payments.id, payment.id));

    expect(await recordPromptSent(db, payment, new Date(first.getTime() + 1_000), "SBX-2", response)).toBeUndefined();
    expect(stored).toHaveLength(0);
    expect(await record()).toMatchObject({ state: "in_progress", responseBody: null });
    expect((await row()).providerReference).toBe("SBX-FIRST");
  });

  it("leaves a record taken over by a newer holder alone, and still records the prompt", async () => {
    const { db, payment, key, response, stored, record, row } = await setUp(m);
    const newer = new Date(Date.now() + 60_000);
    await db
      .update(idempotencyKeys)
      .set({ lockedAt: newer })
      .where(and(eq(idempotencyKeys.merchantId, m.merchant.id), eq(idempotencyKeys.key, key)));

    // Undefined: the caller reads the row, which shows the prompt recorded.
    expect(await recordPromptSent(db, payment, new Date(), "SBX-3", response)).toBeUndefined();
    expect(stored).toHaveLength(0);
    expect(await record()).toMatchObject({ state: "in_progress", lockedAt: newer, responseBody: null });
    expect((await row()).providerReference).toBe("SBX-3");
  });
});
