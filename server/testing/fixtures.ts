import { randomBytes } from "node:crypto";
import { getDb, type Db } from "@/db/client";
import { events, merchants, payments, refunds, type Merchant, type Payment, type Refund } from "@/db/schema";
import type { PaymentStatus } from "@/server/domain/payment-status";
import type { Scope } from "@/server/domain/api-keys";
import { STANDARD_FEE_PLAN, type FeeBearer } from "@/server/domain/fees";
import { newId } from "@/server/domain/ids";
import { systemClock, type Clock } from "@/server/clock";
import type { ServiceContext } from "@/server/context";
import { providers } from "@/server/providers/registry";
import { createApiKey } from "@/server/services/api-keys/create-api-key";

export type TestMerchant = {
  merchant: Merchant;
  keys: { test: string; live: string };
  restrictedKey(scopes: Scope[], livemode?: boolean): Promise<string>;
  ctx(livemode?: boolean, clock?: Clock): Promise<ServiceContext>;
};

/**
 * A fresh merchant with test and live keys. Tests isolate by tenant, which is also what the
 * product promises: nothing a test does to one merchant is visible to another.
 */
export async function seedTestMerchant(opts: { feeBearer?: FeeBearer; paymentExpirySeconds?: number } = {}): Promise<TestMerchant> {
  const db = await getDb();
  const base = { db, clock: systemClock };
  const fixture = { ...base, actor: { type: "system", job: "test" } } as const;
  const now = new Date();
  const [merchant] = await db
    .insert(merchants)
    .values({
      id: newId("merchant", now),
      name: "Test Merchant",
      slug: `test-${randomBytes(6).toString("hex")}`,
      feePlan: STANDARD_FEE_PLAN,
      feeBearer: opts.feeBearer ?? "merchant",
      paymentExpirySeconds: opts.paymentExpirySeconds ?? 180,
      createdAt: now,
    })
    .returning();
  const test = await createApiKey(fixture, { merchantId: merchant!.id, livemode: false, kind: "secret" });
  const live = await createApiKey(fixture, { merchantId: merchant!.id, livemode: true, kind: "secret" });
  return {
    merchant: merchant!,
    keys: { test: test.secret, live: live.secret },
    async restrictedKey(scopes, livemode = false) {
      return (await createApiKey(fixture, { merchantId: merchant!.id, livemode, kind: "restricted", scopes })).secret;
    },
    async ctx(livemode = false, clock = systemClock) {
      return { db, clock, providers, merchant: merchant!, livemode, actor: { type: "system", job: "test" } };
    },
  };
}

let counter = 0;
/** A reference no other test uses. */
export function uniqueRef(prefix = "order"): string {
  counter += 1;
  return `${prefix}-${Date.now().toString(36)}-${counter}-${randomBytes(3).toString("hex")}`;
}

export function paymentBody(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    amount: 1_000,
    currency: "USD",
    method: "wallet",
    reference: uniqueRef(),
    customer: { msisdn: "0771234567" },
    ...overrides,
  };
}

/** A payment row in any state, written directly (fixtures named by state wrap it). */
export async function seedPayment(
  m: TestMerchant,
  status: PaymentStatus,
  opts: { livemode?: boolean; msisdn?: string; at?: Date; expiresInMs?: number; amount?: number; reference?: string } = {},
): Promise<Payment> {
  const db = await getDb();
  const at = opts.at ?? new Date();
  const amount = opts.amount ?? 1_000;
  const stamp = {
    awaiting_customer: {},
    unknown: { unknownSince: at, nextCheckAt: at },
    succeeded: { succeededAt: at },
    failed: { failedAt: at, failureCode: "declined" as const, failureMessage: "Declined by the provider." },
    expired: { expiredAt: at },
    unresolved: { unknownSince: at, unresolvedAt: at, nextCheckAt: at },
  } satisfies Record<PaymentStatus, Partial<Payment>>;
  const [row] = await db
    .insert(payments)
    .values({
      id: newId("payment", at),
      merchantId: m.merchant.id,
      livemode: opts.livemode ?? false,
      amount,
      currency: "USD",
      method: "wallet",
      reference: opts.reference ?? uniqueRef(status),
      customerMsisdn: opts.msisdn ?? "263771234567",
      network: "ecocash",
      fee: 15,
      feeBearer: "merchant",
      chargedAmount: amount,
      status,
      provider: "sandbox",
      providerReference: null,
      promptSentAt: at,
      expiresAt: new Date(at.getTime() + (opts.expiresInMs ?? 180_000)),
      createdAt: at,
      updatedAt: at,
      ...stamp[status],
    })
    .returning();
  return row!;
}

export const seedAwaitingPayment = (m: TestMerchant, opts?: Parameters<typeof seedPayment>[2]) => seedPayment(m, "awaiting_customer", opts);
export const seedUnknownPayment = (m: TestMerchant, opts?: Parameters<typeof seedPayment>[2]) => seedPayment(m, "unknown", opts);
export const seedSucceededPayment = (m: TestMerchant, opts?: Parameters<typeof seedPayment>[2]) => seedPayment(m, "succeeded", opts);

/**
 * A pending refund row of a payment, written directly: `submitted` as if the provider took it at
 * `at`, and due for its next check at `nextCheckAt` (default `at`); `db` may be a transaction.
 */
export async function seedPendingRefund(
  payment: Payment,
  opts: { amount?: number; at?: Date; submitted?: boolean; nextCheckAt?: Date; db?: Db } = {},
): Promise<Refund> {
  const db = opts.db ?? (await getDb());
  const at = opts.at ?? new Date();
  const id = newId("refund", at);
  const [row] = await db
    .insert(refunds)
    .values({
      id,
      merchantId: payment.merchantId,
      livemode: payment.livemode,
      paymentId: payment.id,
      amount: opts.amount ?? payment.amount,
      currency: payment.currency,
      status: "pending",
      provider: payment.provider,
      submittedAt: opts.submitted ? at : null,
      providerReference: opts.submitted ? `SBX-${id}` : null,
      nextCheckAt: opts.nextCheckAt ?? at,
      createdAt: at,
      updatedAt: at,
    })
    .returning();
  return row!;
}

/**
 * `n` payment.succeeded events of `m` in test mode, written at once, a millisecond apart and
 * ending at `end` (now by default); returns the start of their window.
 */
export async function seedEvents(m: TestMerchant, n: number, end: Date = new Date()): Promise<Date> {
  const start = end.getTime() - n;
  const rows = Array.from({ length: n }, (_, i) => {
    const at = new Date(start + i);
    return { id: newId("event", at), merchantId: m.merchant.id, livemode: false, type: "payment.succeeded" as const, data: { object: {} }, objectId: newId("payment", at), createdAt: at };
  });
  const db = await getDb();
  // In slices: one statement's parameters are limited (65,535).
  for (let i = 0; i < rows.length; i += 5_000) await db.insert(events).values(rows.slice(i, i + 5_000));
  return new Date(start);
}
