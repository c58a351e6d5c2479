import { randomBytes } from "node:crypto";
import { and, eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { getDb } from "@/db/client";
import { idempotencyKeys, payments, type Payment } from "@/db/schema";
import { systemClock } from "@/server/clock";
import { claimIdempotencyKey, type OwnedKey } from "@/server/services/idempotency/claim";
import type { Completion, ResponseRecord } from "@/server/services/idempotency/completion";
import { violatedUniqueConstraint } from "@/db/errors";
import { newId } from "@/server/domain/ids";
import { seedAwaitingPayment, seedTestMerchant, uniqueRef, type TestMerchant } from "@/server/testing/fixtures";
import { claimAndInsertPayment, recordPromptSent, type InsertablePayment } from "./prepared";

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

describe("claimAndInsertPayment: the key's record and the payment in one statement", () => {
  let m: TestMerchant;
  beforeAll(async () => {
    m = await seedTestMerchant();
  });

  /** A payment ready to insert under `key`, and the claim's values for the same key. */
  function draft(key: string, reference = uniqueRef("claim")) {
    const now = new Date();
    const values: InsertablePayment = {
      id: newId("payment", now),
      merchantId: m.merchant.id,
      livemode: false,
      amount: 1_250,
      currency: "USD",
      method: "wallet",
      reference,
      customerMsisdn: "263771234567",
      network: "ecocash",
      fee: 19,
      feeBearer: "merchant",
      chargedAmount: 1_250,
      status: "awaiting_customer",
      provider: "sandbox",
      metadata: { order: "A-1" },
      idempotencyKey: key,
      paymentLinkId: null,
      checkoutSessionId: null,
      expiresAt: new Date(now.getTime() + 180_000),
      createdAt: now,
      updatedAt: now,
    };
    const claim = { merchantId: m.merchant.id, livemode: false, key, requestHash: "fingerprint", now, expiresAt: new Date(now.getTime() + 86_400_000) };
    return { values, claim };
  }

  const recordOf = async (key: string) =>
    (await (await getDb()).select().from(idempotencyKeys).where(and(eq(idempotencyKeys.merchantId, m.merchant.id), eq(idempotencyKeys.key, key))))[0];
  const paymentsUnder = async (key: string) =>
    (await getDb()).select().from(payments).where(and(eq(payments.merchantId, m.merchant.id), eq(payments.idempotencyKey, key)));

  it("claims a new key and inserts the payment, answering the claim with the payment as inserted", async () => {
    const db = await getDb();
    const key = `k-${randomBytes(6).toString("hex")}`;
    const { values, claim } = draft(key);
    const row = await claimAndInsertPayment(db, values)(claim);

    expect(row).toMatchObject({ inserted: true, state: "in_progress", requestHash: "fingerprint", lockedAt: claim.now, responseBody: null });
    // Every column decoded as a select would: dates as dates, metadata as an object, defaults filled.
    const [stored] = await paymentsUnder(key);
    expect(row!.written).toEqual(stored);
    expect(stored).toMatchObject({ ...values, promptSentAt: null, checkAttempts: 0, amountRefunded: 0, failureCode: null, settlementId: null });
    expect(await recordOf(key)).toMatchObject({ state: "in_progress", lockedAt: claim.now, requestHash: "fingerprint" });
  });

  it("inserts nothing under a key already held, and answers the holder's record", async () => {
    const db = await getDb();
    const key = `k-${randomBytes(6).toString("hex")}`;
    const first = draft(key);
    await claimAndInsertPayment(db, first.values)(first.claim);

    const second = draft(key);
    const row = await claimAndInsertPayment(db, second.values)({ ...second.claim, requestHash: "another" });
    expect(row).toMatchObject({ inserted: false, written: null, requestHash: "fingerprint", lockedAt: first.claim.now });
    expect(await paymentsUnder(key)).toHaveLength(1);
    expect((await paymentsUnder(key))[0]!.id).toBe(first.values.id);
  });

  it("rolls the record back with the payment when the payment cannot be inserted (a reference in use)", async () => {
    const db = await getDb();
    const taken = draft(`k-${randomBytes(6).toString("hex")}`);
    await claimAndInsertPayment(db, taken.values)(taken.claim);

    const key = `k-${randomBytes(6).toString("hex")}`;
    const clash = draft(key, taken.values.reference);
    const error = await claimAndInsertPayment(db, clash.values)(clash.claim).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(violatedUniqueConstraint(error)).toBe("payments_reference_key");
    expect(await recordOf(key)).toBeUndefined();
    expect(await paymentsUnder(key)).toHaveLength(0);
  });
});
