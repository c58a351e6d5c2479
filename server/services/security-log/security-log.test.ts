import { eq } from "drizzle-orm";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { getDb } from "@/db/client";
import { securityEvents, staffUsers } from "@/db/schema";
import { newId } from "@/server/domain/ids";
import { loginKey } from "@/server/domain/staff";
import { consumeSignInAttempt, resetRateLimitersForTests } from "@/server/rate-limit";
import { systemClock } from "@/server/clock";
import { createApiKey } from "@/server/services/api-keys/create-api-key";
import { revokeApiKey } from "@/server/services/api-keys/revoke-api-key";
import { updateMerchantSettings } from "@/server/services/merchants/update-merchant-settings";
import { authenticateStaff } from "@/server/services/staff/authenticate-staff";
import { createEndpoint } from "@/server/services/webhooks/create-endpoint";
import { deleteEndpoint } from "@/server/services/webhooks/delete-endpoint";
import { rollEndpointSecret } from "@/server/services/webhooks/roll-endpoint-secret";
import { updateEndpoint } from "@/server/services/webhooks/update-endpoint";
import { api } from "@/server/testing/api";
import { setEnv } from "@/server/testing/env";
import { seedTestMerchant, type TestMerchant } from "@/server/testing/fixtures";
import { dashboardAs, insertTestStaff, refusal, STAFF_TEST_PASSWORD } from "@/server/trpc/testing";

let m: TestMerchant;
let other: TestMerchant;
beforeEach(async () => {
  m = await seedTestMerchant();
  other = await seedTestMerchant();
});
afterEach(() => resetRateLimitersForTests());

/** The merchant's log, oldest first, less the fixture's own key creations. */
async function log(merchant: TestMerchant = m) {
  const rows = await (await getDb()).select().from(securityEvents).where(eq(securityEvents.merchantId, merchant.merchant.id)).orderBy(securityEvents.id);
  return rows.filter((r) => !(r.action === "api_key.created" && r.actorLabel === "Mari (test)"));
}
const staffRow = async (id: string) => (await (await getDb()).select().from(staffUsers).where(eq(staffUsers.id, id)))[0]!;
const me = async (caller: Awaited<ReturnType<typeof dashboardAs>>) => (await caller.staff.list()).find((s) => s.you)!;

describe("security log: what the team's changes record", () => {
  it("adding, promoting, resetting and removing a member: one entry each, by the admin, naming the member", async () => {
    const admin = await dashboardAs(m, "admin");
    const adminRow = await me(admin);
    const added = await admin.staff.add({ email: `ana-${Date.now()}@shop.example`, role: "viewer", confirmPassword: STAFF_TEST_PASSWORD });
    await admin.staff.changeRole({ id: added.id, role: "developer", confirmPassword: STAFF_TEST_PASSWORD });
    // The role they already hold changes nothing, and records nothing.
    await admin.staff.changeRole({ id: added.id, role: "developer", confirmPassword: STAFF_TEST_PASSWORD });
    await admin.staff.resetPassword({ id: added.id, confirmPassword: STAFF_TEST_PASSWORD });
    await admin.staff.remove({ id: added.id, confirmPassword: STAFF_TEST_PASSWORD });
    const entries = await log();
    expect(entries.map((e) => [e.action, e.actorType, e.actorId, e.actorLabel, e.targetId, e.targetLabel, e.detail, e.livemode])).toEqual([
      ["staff.added", "staff", adminRow.id, adminRow.email, added.id, added.email, { role: "viewer" }, null],
      ["staff.role_changed", "staff", adminRow.id, adminRow.email, added.id, added.email, { role: { from: "viewer", to: "developer" } }, null],
      ["staff.password_reset", "staff", adminRow.id, adminRow.email, added.id, added.email, {}, null],
      ["staff.removed", "staff", adminRow.id, adminRow.email, added.id, added.email, { role: "developer" }, null],
    ]);
    // No generated password, no hash, ever reaches the log.
    expect(JSON.stringify(entries)).not.toContain(added.password);
    expect(await log(other)).toEqual([]);
  });

  it("a change that is refused or rolls back leaves no entry", async () => {
    const admin = await dashboardAs(m, "admin");
    const self = await me(admin);
    const email = `dup-${Date.now()}@shop.example`;
    await admin.staff.add({ email, role: "viewer", confirmPassword: STAFF_TEST_PASSWORD });
    const before = await log();
    // Taken address (the insert fails inside the transaction), the last admin demoted (refused after the lock).
    expect(await refusal(admin.staff.add({ email: email.toUpperCase(), role: "viewer", confirmPassword: STAFF_TEST_PASSWORD }))).toBe("BAD_REQUEST");
    expect(await refusal(admin.staff.changeRole({ id: self.id, role: "viewer", confirmPassword: STAFF_TEST_PASSWORD }))).toBe("BAD_REQUEST");
    expect(await refusal(admin.staff.remove({ id: newId("staffUser"), confirmPassword: STAFF_TEST_PASSWORD }))).toBe("NOT_FOUND");
    expect(await log()).toEqual(before);
  });

  it("sign-ins: a success by the member, a wrong password by someone not signed in; an unknown address goes nowhere", async () => {
    const id = await insertTestStaff(m, "viewer");
    const { email } = await staffRow(id);
    const base = { db: await getDb(), clock: systemClock, clientAddress: "196.4.80.1" };
    const business = m.merchant.slug;
    expect(await authenticateStaff(base, { business, email, password: "not the passphrase" })).toBeNull();
    expect((await authenticateStaff(base, { business, email: email.toUpperCase(), password: STAFF_TEST_PASSWORD }))?.id).toBe(id);
    expect(await authenticateStaff(base, { business, email: `nobody-${id}@shop.example`, password: STAFF_TEST_PASSWORD })).toBeNull();
    // The member's address at a business they do not belong to: no one's login, so no one's log.
    expect(await authenticateStaff(base, { business: `elsewhere-${id}`.toLowerCase(), email, password: "not the passphrase" })).toBeNull();
    expect((await log()).map((e) => [e.action, e.actorType, e.actorId, e.actorLabel, e.targetId, e.clientAddress])).toEqual([
      ["staff.sign_in_failed", "anonymous", null, "Someone not signed in", id, "196.4.80.1"],
      ["staff.signed_in", "staff", id, email, id, "196.4.80.1"],
    ]);
    // The attempt's password is not kept anywhere.
    expect(JSON.stringify(await log())).not.toContain("not the passphrase");
  });

  it("a member's own password change and sign-out everywhere are theirs", async () => {
    const viewer = await dashboardAs(m, "viewer");
    const self = await me(viewer);
    await viewer.staff.changePassword({ current: STAFF_TEST_PASSWORD, password: "a brand new long passphrase" });
    await viewer.staff.signOutEverywhere();
    expect((await log()).map((e) => [e.action, e.actorId, e.targetId])).toEqual([
      ["staff.password_changed", self.id, self.id],
      ["staff.signed_out_everywhere", self.id, self.id],
    ]);
  });
});

describe("security log: keys, endpoints and settings", () => {
  it("keys: created and revoked (once), with their environment, by whoever did it", async () => {
    const admin = await dashboardAs(m, "admin", true);
    const self = await me(admin);
    const made = await admin.apiKeys.create({ kind: "restricted", scopes: ["payments:read"], name: "till", confirmPassword: STAFF_TEST_PASSWORD });
    await admin.apiKeys.revoke({ id: made.key.id });
    await admin.apiKeys.revoke({ id: made.key.id });
    const seeded = await createApiKey({ db: await getDb(), clock: systemClock, actor: { type: "system", job: "seed" } }, { merchantId: m.merchant.id, livemode: false, kind: "secret" });
    await revokeApiKey({ ...(await m.ctx()), actor: { type: "staff", userId: self.id, email: self.email } }, seeded.key.id);
    const entries = await log();
    expect(entries.map((e) => [e.action, e.livemode, e.actorLabel, e.targetId, e.targetLabel, e.detail])).toEqual([
      ["api_key.created", true, self.email, made.key.id, `${made.key.display_prefix} (till)`, { kind: "restricted", scopes: ["payments:read"] }],
      ["api_key.revoked", true, self.email, made.key.id, `${made.key.display_prefix} (till)`, {}],
      ["api_key.created", false, "Mari (seed)", seeded.key.id, seeded.key.displayPrefix, { kind: "secret" }],
      ["api_key.revoked", false, self.email, seeded.key.id, seeded.key.displayPrefix, {}],
    ]);
    expect(JSON.stringify(entries)).not.toContain(made.secret);
    expect(JSON.stringify(entries)).not.toContain(seeded.secret);
  });

  it("endpoints: created, re-pointed, rolled and deleted; a description alone is not the log's business", async () => {
    const ctx = await m.ctx();
    const endpoint = await createEndpoint(ctx, { url: "http://127.0.0.1:9/a", enabledEvents: ["*"] });
    await updateEndpoint(ctx, endpoint.id, { description: "orders" });
    await updateEndpoint(ctx, endpoint.id, { url: "http://127.0.0.1:9/b", enabledEvents: ["payment.succeeded"], disabled: true });
    await rollEndpointSecret(ctx, endpoint.id);
    await deleteEndpoint(ctx, endpoint.id);
    await expect(deleteEndpoint(ctx, endpoint.id)).rejects.toMatchObject({ code: "resource_missing" });
    const entries = (await log()).filter((e) => e.targetId === endpoint.id);
    expect(entries.map((e) => [e.action, e.livemode, e.actorLabel, e.targetLabel, e.detail])).toEqual([
      ["webhook_endpoint.created", false, "Mari (test)", "http://127.0.0.1:9/a", { enabled_events: ["*"] }],
      [
        "webhook_endpoint.updated",
        false,
        "Mari (test)",
        "http://127.0.0.1:9/b",
        { url: { from: "http://127.0.0.1:9/a", to: "http://127.0.0.1:9/b" }, enabled_events: { from: ["*"], to: ["payment.succeeded"] }, status: { from: "enabled", to: "disabled" } },
      ],
      ["webhook_endpoint.secret_rolled", false, "Mari (test)", "http://127.0.0.1:9/b", {}],
      ["webhook_endpoint.deleted", false, "Mari (test)", "http://127.0.0.1:9/b", {}],
    ]);
    const secrets = JSON.stringify(entries);
    expect(secrets).not.toMatch(/whsec_/);
  });

  it("an endpoint made over the API is the key's doing, from the address the trusted proxy saw", async () => {
    const restore = setEnv({ TRUSTED_PROXY_HOPS: "1" });
    try {
      const res = await api("POST", "/v1/webhook_endpoints", {
        key: m.keys.test,
        idempotencyKey: `we-${Date.now()}`,
        headers: { "x-forwarded-for": "10.9.9.9, 41.57.96.7" },
        body: { url: "http://127.0.0.1:9/api", enabled_events: ["*"] },
      });
      expect(res.status).toBe(201);
      const [entry] = (await log()).filter((e) => e.targetId === (res.body as { id: string }).id);
      expect(entry).toMatchObject({ action: "webhook_endpoint.created", actorType: "api_key", clientAddress: "41.57.96.7" });
      expect(entry!.actorLabel).toMatch(/^API key sk_test_…[0-9a-z]{4}$/);
      expect(m.keys.test.endsWith(entry!.actorLabel.slice(-4))).toBe(true);
    } finally {
      restore();
    }
  });

  it("settings: what changed, from what to what; a change to the same values records nothing", async () => {
    const ctx = await m.ctx();
    await updateMerchantSettings(ctx, { feeBearer: "customer", paymentExpirySeconds: 300 });
    await updateMerchantSettings({ ...ctx, merchant: { ...ctx.merchant, feeBearer: "customer", paymentExpirySeconds: 300 } }, { feeBearer: "customer" });
    expect((await log()).map((e) => [e.action, e.detail])).toEqual([
      ["settings.updated", { fee_bearer: { from: "merchant", to: "customer" }, payment_expiry_seconds: { from: 180, to: 300 } }],
    ]);
  });
});

describe("dashboard: security.list", () => {
  it("admins page through their own merchant's log, both ways; a cursor not theirs is missing; other roles are refused", async () => {
    const admin = await dashboardAs(m, "admin");
    const ctx = await m.ctx();
    for (let i = 0; i < 7; i++) await createEndpoint(ctx, { url: `http://127.0.0.1:9/e${i}`, enabledEvents: ["*"] });
    await createEndpoint(await other.ctx(), { url: "http://127.0.0.1:9/theirs", enabledEvents: ["*"] });
    const all = (await admin.security.list({ limit: 100 })).data;
    expect(all.map((e) => e.target?.label)).not.toContain("http://127.0.0.1:9/theirs");
    // Newest first: the fixture's two keys are the oldest.
    expect(all.slice(0, 7).map((e) => e.target?.label)).toEqual([6, 5, 4, 3, 2, 1, 0].map((i) => `http://127.0.0.1:9/e${i}`));

    const seen: string[] = [];
    let page = await admin.security.list({ limit: 3 });
    for (;;) {
      seen.push(...page.data.map((e) => e.id));
      if (!page.hasMore) break;
      page = await admin.security.list({ limit: 3, startingAfter: page.data.at(-1)!.id });
    }
    expect(seen).toEqual(all.map((e) => e.id));
    const back = await admin.security.list({ limit: 3, endingBefore: all[4]!.id });
    expect(back.data.map((e) => e.id)).toEqual(all.slice(1, 4).map((e) => e.id));
    expect(back.hasMore).toBe(true);

    const theirs = (await (await dashboardAs(other, "admin")).security.list({ limit: 1 })).data[0]!.id;
    for (const cursor of [theirs, newId("securityEvent")]) expect(await refusal(admin.security.list({ startingAfter: cursor }))).toBe("NOT_FOUND");
    for (const role of ["developer", "viewer"] as const) expect(await refusal((await dashboardAs(m, role)).security.list({}))).toBe("FORBIDDEN");
  });
});

describe("dashboard: the caller's password, asked again", () => {
  it("before giving someone a login or showing a live secret; a missing or wrong one changes nothing", async () => {
    const admin = await dashboardAs(m, "admin");
    const adminLive = await dashboardAs(m, "admin", true);
    const member = await insertTestStaff(m, "viewer");
    const otherAdmin = await insertTestStaff(m, "admin");
    const leaving = await insertTestStaff(m, "developer");
    const endpoint = await createEndpoint(await m.ctx(true), { url: "https://127.0.0.1:9/live", enabledEvents: ["*"] });
    const before = { log: await log(), member: await staffRow(member), team: (await admin.staff.list()).length, keys: (await adminLive.apiKeys.list({})).data.length };
    const asks = {
      "staff.add": (p?: string) => admin.staff.add({ email: `new-${Date.now()}@shop.example`, role: "viewer", confirmPassword: p }),
      "staff.resetPassword": (p?: string) => admin.staff.resetPassword({ id: member, confirmPassword: p }),
      "staff.changeRole to admin": (p?: string) => admin.staff.changeRole({ id: member, role: "admin", confirmPassword: p }),
      "staff.changeRole of another admin": (p?: string) => admin.staff.changeRole({ id: otherAdmin, role: "viewer", confirmPassword: p }),
      "staff.remove": (p?: string) => admin.staff.remove({ id: leaving, confirmPassword: p }),
      "apiKeys.create (live)": (p?: string) => adminLive.apiKeys.create({ kind: "secret", confirmPassword: p }),
      "webhooks.create (live)": (p?: string) => adminLive.webhooks.create({ url: "https://127.0.0.1:9/x", enabledEvents: ["*"], confirmPassword: p }),
      "webhooks.rollSecret (live)": (p?: string) => adminLive.webhooks.rollSecret({ id: endpoint.id, confirmPassword: p }),
    };
    for (const [name, ask] of Object.entries(asks)) {
      for (const password of [undefined, "", "not my passphrase"]) {
        const e = await ask(password).catch((err: unknown) => err);
        expect({ name, password, code: (e as { code?: string }).code, param: (e as { cause?: { param?: string } }).cause?.param }).toEqual({
          name,
          password,
          code: "BAD_REQUEST",
          param: "confirmPassword",
        });
      }
      resetRateLimitersForTests();
    }
    expect(await log()).toEqual(before.log);
    expect(await staffRow(member)).toEqual(before.member);
    expect((await admin.staff.list()).length).toBe(before.team);
    expect((await adminLive.apiKeys.list({})).data.length).toBe(before.keys);

    // With it, each goes through.
    for (const ask of Object.values(asks)) await ask(STAFF_TEST_PASSWORD);
    expect((await staffRow(member)).role).toBe("admin");
    expect((await staffRow(otherAdmin)).role).toBe("viewer");
    expect((await admin.staff.list()).map((s) => s.id)).not.toContain(leaving);
  });

  it("not for what gives no login and shows no live secret", async () => {
    const admin = await dashboardAs(m, "admin");
    await admin.apiKeys.create({ kind: "secret" });
    const endpoint = await admin.webhooks.create({ url: "http://127.0.0.1:9/t", enabledEvents: ["*"] });
    await admin.webhooks.rollSecret({ id: endpoint.id });
  });

  it("guesses are limited as sign-ins are, so an open session is no faster way to guess", async () => {
    const restore = setEnv({ SIGN_IN_ATTEMPTS_PER_15_MIN: "3", REDIS_URL: undefined });
    resetRateLimitersForTests();
    try {
      const admin = await dashboardAs(m, "admin");
      for (let i = 0; i < 3; i++) expect(await refusal(admin.staff.add({ email: `g${i}-${Date.now()}@shop.example`, role: "viewer", confirmPassword: `guess ${i}` }))).toBe("BAD_REQUEST");
      expect(await refusal(admin.staff.add({ email: `right-${Date.now()}@shop.example`, role: "viewer", confirmPassword: STAFF_TEST_PASSWORD }))).toBe("TOO_MANY_REQUESTS");

      // Guesses at the sign-in page spend the login's budget, not the member's sessions'.
      const other = await dashboardAs(m, "admin");
      const { email } = await me(other);
      for (let i = 0; i < 4; i++) await consumeSignInAttempt(loginKey(m.merchant.slug, email), null);
      expect((await consumeSignInAttempt(loginKey(m.merchant.slug, email), null)).ok).toBe(false);
      await other.staff.add({ email: `locked-${Date.now()}@shop.example`, role: "viewer", confirmPassword: STAFF_TEST_PASSWORD });
    } finally {
      restore();
    }
  });
});
