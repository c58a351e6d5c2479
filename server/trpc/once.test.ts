import { randomBytes } from "node:crypto";
import { and, eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { getDb } from "@/db/client";
import { apiKeys, paymentLinks, staffUsers, webhookEndpoints } from "@/db/schema";
import { api } from "@/server/testing/api";
import { dashboardIdempotencyKey } from "@/server/domain/idempotency";
import { seedTestMerchant } from "@/server/testing/fixtures";
import { refuseCompletion } from "@/server/testing/refuse-completion";
import { dashboardAs, STAFF_TEST_PASSWORD } from "./testing";

const formKey = () => randomBytes(16).toString("hex");

/**
 * A dashboard form sends one key with each try of an action that makes something: a try sent again
 * after its answer was lost gets the first answer, and nothing is made twice (server/trpc/once.ts).
 */
describe("dashboard actions sent again with their form key", () => {
  it("an API key, an endpoint, a link and a login are made once, and the second try shows the first one's secret", async () => {
    const m = await seedTestMerchant();
    const admin = await dashboardAs(m, "admin");
    const db = await getDb();

    const keyForm = formKey();
    const key = await admin.apiKeys.create({ kind: "secret", name: "lost answer", formKey: keyForm });
    expect(await admin.apiKeys.create({ kind: "secret", name: "lost answer", formKey: keyForm })).toEqual(key);
    expect(await db.select().from(apiKeys).where(and(eq(apiKeys.merchantId, m.merchant.id), eq(apiKeys.name, "lost answer")))).toHaveLength(1);

    const endpointForm = formKey();
    const endpoint = await admin.webhooks.create({ url: "http://127.0.0.1:9/once", enabledEvents: ["*"], formKey: endpointForm });
    expect(endpoint.secret).toMatch(/^whsec_/);
    expect(await admin.webhooks.create({ url: "http://127.0.0.1:9/once", enabledEvents: ["*"], formKey: endpointForm })).toEqual(endpoint);
    expect(await db.select().from(webhookEndpoints).where(eq(webhookEndpoints.merchantId, m.merchant.id))).toHaveLength(1);

    const linkForm = formKey();
    const link = await admin.paymentLinks.create({ amount: 500, currency: "USD", description: "once", formKey: linkForm });
    expect((await admin.paymentLinks.create({ amount: 500, currency: "USD", description: "once", formKey: linkForm })).id).toBe(link.id);
    expect(await db.select().from(paymentLinks).where(eq(paymentLinks.merchantId, m.merchant.id))).toHaveLength(1);

    const addForm = formKey();
    const email = `once-${Date.now().toString(36)}@example.test`;
    const added = await admin.staff.add({ email, role: "viewer", confirmPassword: STAFF_TEST_PASSWORD, formKey: addForm });
    expect(await admin.staff.add({ email, role: "viewer", confirmPassword: STAFF_TEST_PASSWORD, formKey: addForm })).toEqual(added);
    // Without its key, the same address again is refused, as before.
    await expect(admin.staff.add({ email, role: "viewer", confirmPassword: STAFF_TEST_PASSWORD })).rejects.toThrow(/already on your team/);
    expect(await db.select().from(staffUsers).where(and(eq(staffUsers.merchantId, m.merchant.id), eq(staffUsers.email, email)))).toHaveLength(1);

    // Each try still asks for the password: a replay does not skip it.
    await expect(admin.staff.add({ email, role: "viewer", confirmPassword: "not the password", formKey: addForm })).rejects.toThrow(/not your current password/);
  });

  it("a roll sent again shows the first roll's secret, and the secret it kept signing still signs", async () => {
    const m = await seedTestMerchant();
    const dev = await dashboardAs(m, "developer");
    const created = await dev.webhooks.create({ url: "http://127.0.0.1:9/roll", enabledEvents: ["*"], formKey: formKey() });
    const rollForm = formKey();
    const first = await dev.webhooks.rollSecret({ id: created.id, formKey: rollForm });
    const again = await dev.webhooks.rollSecret({ id: created.id, formKey: rollForm });
    expect(again.secret).toBe(first.secret);
    const [row] = await (await getDb()).select().from(webhookEndpoints).where(eq(webhookEndpoints.id, created.id));
    expect(row!.secret).toBe(first.secret);
    expect(row!.previousSecret).toBe(created.secret);
    // The next roll, with the form's next key, rolls.
    expect((await dev.webhooks.rollSecret({ id: created.id, formKey: formKey() })).secret).not.toBe(first.secret);
  });

  it("a try that was refused is not kept: the same key, corrected, makes the thing", async () => {
    const m = await seedTestMerchant();
    const dev = await dashboardAs(m, "developer");
    const linkForm = formKey();
    await expect(dev.paymentLinks.create({ amount: 500, currency: "USD", description: "late", expiresAt: "2020-01-01T00:00:00Z", formKey: linkForm })).rejects.toThrow();
    const link = await dev.paymentLinks.create({ amount: 500, currency: "USD", description: "late", formKey: linkForm });
    expect(link.id).toMatch(/^plink_/);
  });

  it("no API request meets a form's record: an Idempotency-Key that spells it is a request of its own", async () => {
    const m = await seedTestMerchant();
    const linkForm = formKey();
    const link = await (await dashboardAs(m, "developer")).paymentLinks.create({ amount: 500, currency: "USD", description: "form", formKey: linkForm });
    for (const spelled of [`dashboard:paymentLinks.create:${linkForm}`, `dashboard:${linkForm}`]) {
      const res = await api("POST", "/v1/payment_links", { key: m.keys.test, idempotencyKey: spelled, body: { amount: 500, currency: "USD", description: "api" } });
      expect(res.status).toBe(201);
      expect(res.body.id).not.toBe(link.id);
    }
  });

  it("refuses a form key that is not 32 hexadecimal characters", async () => {
    const dev = await dashboardAs(await seedTestMerchant(), "developer");
    await expect(dev.paymentLinks.create({ amount: 500, currency: "USD", description: "x", formKey: "short" })).rejects.toThrow(/formKey must be 32 hexadecimal characters/);
  });
});

/**
 * A try whose write committed but whose answer was not stored (the database gone between the two)
 * would leave its object made and its form key free: the try sent again would make a second one.
 * The answer commits with the write instead, so the failed try leaves nothing.
 */
describe("dashboard actions whose answer could not be stored after their write", () => {
  async function failThenRetry<T>(action: string, run: (formKey: string) => Promise<T>): Promise<T> {
    const form = formKey();
    const allow = await refuseCompletion(dashboardIdempotencyKey(action, form));
    try {
      await expect(run(form)).rejects.toThrow();
    } finally {
      await allow();
    }
    const retry = await run(form);
    expect(await run(form)).toEqual(retry);
    return retry;
  }

  it("make an API key, an endpoint, a link and a login once, when the form sends its key again", async () => {
    const m = await seedTestMerchant();
    const admin = await dashboardAs(m, "admin");
    const db = await getDb();

    await failThenRetry("apiKeys.create", (form) => admin.apiKeys.create({ kind: "secret", name: "answer lost", formKey: form }));
    expect(await db.select().from(apiKeys).where(and(eq(apiKeys.merchantId, m.merchant.id), eq(apiKeys.name, "answer lost")))).toHaveLength(1);

    await failThenRetry("webhooks.create", (form) => admin.webhooks.create({ url: "http://127.0.0.1:9/lost", enabledEvents: ["*"], formKey: form }));
    expect(await db.select().from(webhookEndpoints).where(eq(webhookEndpoints.merchantId, m.merchant.id))).toHaveLength(1);

    await failThenRetry("paymentLinks.create", (form) => admin.paymentLinks.create({ amount: 500, currency: "USD", description: "lost", formKey: form }));
    expect(await db.select().from(paymentLinks).where(eq(paymentLinks.merchantId, m.merchant.id))).toHaveLength(1);

    const email = `lost-${Date.now().toString(36)}@example.test`;
    const added = await failThenRetry("staff.add", (form) => admin.staff.add({ email, role: "viewer", confirmPassword: STAFF_TEST_PASSWORD, formKey: form }));
    expect(added.email).toBe(email);
    expect(await db.select().from(staffUsers).where(and(eq(staffUsers.merchantId, m.merchant.id), eq(staffUsers.email, email)))).toHaveLength(1);
  });

  it("roll a secret and reset a password once: the failed try changed neither", async () => {
    const m = await seedTestMerchant();
    const admin = await dashboardAs(m, "admin");
    const db = await getDb();

    const created = await admin.webhooks.create({ url: "http://127.0.0.1:9/roll-lost", enabledEvents: ["*"], formKey: formKey() });
    const rolled = await failThenRetry(`webhooks.rollSecret:${created.id}`, (form) => admin.webhooks.rollSecret({ id: created.id, formKey: form }));
    const [endpoint] = await db.select().from(webhookEndpoints).where(eq(webhookEndpoints.id, created.id));
    // Rolled once: the secret the merchant held signs beside the new one.
    expect(endpoint!.previousSecret).toBe(created.secret);
    expect(endpoint!.secret).toBe(rolled.secret);

    const member = await admin.staff.add({ email: `reset-${Date.now().toString(36)}@example.test`, role: "viewer", confirmPassword: STAFF_TEST_PASSWORD });
    const before = await db.select({ hash: staffUsers.passwordHash }).from(staffUsers).where(eq(staffUsers.id, member.id));
    const action = `staff.resetPassword:${member.id}`;
    const allow = await refuseCompletion(dashboardIdempotencyKey(action, "0".repeat(32)));
    try {
      await expect(admin.staff.resetPassword({ id: member.id, confirmPassword: STAFF_TEST_PASSWORD, formKey: "0".repeat(32) })).rejects.toThrow();
    } finally {
      await allow();
    }
    expect(await db.select({ hash: staffUsers.passwordHash }).from(staffUsers).where(eq(staffUsers.id, member.id))).toEqual(before);
    const reset = await admin.staff.resetPassword({ id: member.id, confirmPassword: STAFF_TEST_PASSWORD, formKey: "0".repeat(32) });
    expect(reset.password).toBeTruthy();
  });
});
