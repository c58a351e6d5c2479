import { eq } from "drizzle-orm";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { getDb } from "@/db/client";
import { staffUsers } from "@/db/schema";
import { hashPassword } from "@/server/domain/passwords";
import { loginKey } from "@/server/domain/staff";
import { consumeSignInAttempt, resetRateLimitersForTests } from "@/server/rate-limit";
import { authenticateStaff } from "@/server/services/staff/authenticate-staff";
import { systemContext } from "@/server/system-context";
import { setEnv } from "@/server/testing/env";
import { seedTestMerchant, type TestMerchant } from "@/server/testing/fixtures";
import { dashboardAs, refusal, STAFF_TEST_PASSWORD } from "../testing";

let m: TestMerchant;
let other: TestMerchant;
beforeEach(async () => {
  m = await seedTestMerchant();
  other = await seedTestMerchant();
});
// A test that narrows the sign-in budget (setEnv) puts it back after itself.
let restore: (() => void) | undefined;
afterEach(() => {
  restore?.();
  restore = undefined;
  resetRateLimitersForTests();
});

describe("dashboard: team", () => {
  it("an admin adds a member whose one-time password signs in, changes their role and removes them", async () => {
    const admin = await dashboardAs(m, "admin");
    const email = `ana-${Date.now()}@shop.example`;
    const added = await admin.staff.add({ email, role: "viewer", confirmPassword: STAFF_TEST_PASSWORD });
    expect(added.password.length).toBeGreaterThanOrEqual(16);
    expect(added.business).toBe(m.merchant.slug);
    expect((await authenticateStaff(await systemContext(), { business: m.merchant.slug, email, password: added.password }))?.id).toBe(added.id);
    expect((await admin.staff.list()).map((s) => s.email)).toContain(email);

    expect(await admin.staff.changeRole({ id: added.id, role: "developer", confirmPassword: STAFF_TEST_PASSWORD })).toMatchObject({ role: "developer" });
    await admin.staff.remove({ id: added.id, confirmPassword: STAFF_TEST_PASSWORD });
    expect((await admin.staff.list()).map((s) => s.email)).not.toContain(email);
    expect(await authenticateStaff(await systemContext(), { business: m.merchant.slug, email, password: added.password })).toBeNull();
  });

  it("refuses an address already on the team, a bad address, removing yourself and leaving no admin", async () => {
    const admin = await dashboardAs(m, "admin");
    const me = (await admin.staff.list()).find((s) => s.you)!;
    const email = `dup-${Date.now()}@shop.example`;
    await admin.staff.add({ email, role: "viewer", confirmPassword: STAFF_TEST_PASSWORD });
    const again = await admin.staff.add({ email: email.toUpperCase(), role: "viewer", confirmPassword: STAFF_TEST_PASSWORD }).catch((e: unknown) => e);
    expect(again).toMatchObject({ code: "BAD_REQUEST", message: "That e-mail address is already on your team." });
    expect(await refusal(admin.staff.add({ email: "not an address", role: "viewer", confirmPassword: STAFF_TEST_PASSWORD }))).toBe("BAD_REQUEST");
    expect(await refusal(admin.staff.remove({ id: me.id, confirmPassword: STAFF_TEST_PASSWORD }))).toBe("BAD_REQUEST");
    expect(await refusal(admin.staff.changeRole({ id: me.id, role: "viewer", confirmPassword: STAFF_TEST_PASSWORD }))).toBe("BAD_REQUEST");
  });

  it("only admins change the team, and never another merchant's", async () => {
    const theirAdmin = await dashboardAs(other, "admin");
    const theirs = (await theirAdmin.staff.list())[0]!;
    const admin = await dashboardAs(m, "admin");
    expect(await refusal(admin.staff.changeRole({ id: theirs.id, role: "viewer", confirmPassword: STAFF_TEST_PASSWORD }))).toBe("NOT_FOUND");
    expect(await refusal(admin.staff.remove({ id: theirs.id, confirmPassword: STAFF_TEST_PASSWORD }))).toBe("NOT_FOUND");
    expect((await admin.staff.list()).map((s) => s.id)).not.toContain(theirs.id);

    for (const role of ["developer", "viewer"] as const) {
      const caller = await dashboardAs(m, role);
      expect(await refusal(caller.staff.add({ email: `x-${role}-${Date.now()}@shop.example`, role: "admin" }))).toBe("FORBIDDEN");
      expect(await refusal(caller.staff.remove({ id: theirs.id, confirmPassword: STAFF_TEST_PASSWORD }))).toBe("FORBIDDEN");
      expect((await caller.staff.list()).length).toBeGreaterThan(0);
    }
  });

  it("admins demoting each other all at once always leave one admin (PostgreSQL: the merchant row queues them)", async () => {
    const admins = await Promise.all(Array.from({ length: 8 }, () => dashboardAs(m, "admin")));
    const ids = await Promise.all(admins.map(async (a) => (await a.staff.list()).find((s) => s.you)!.id));
    // Each demotes the next one round the circle, all at once.
    const results = await Promise.allSettled(admins.map((a, i) => a.staff.changeRole({ id: ids[(i + 1) % ids.length]!, role: "viewer", confirmPassword: STAFF_TEST_PASSWORD })));
    expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(7);
    expect((await admins[0]!.staff.list()).filter((s) => s.role === "admin")).toHaveLength(1);
  });
});

/** A dashboard caller whose password is known, and its staff row. */
async function withPassword(role: "admin" | "developer" | "viewer", password = "the first long passphrase") {
  const caller = await dashboardAs(m, role);
  const me = (await caller.staff.list()).find((s) => s.you)!;
  await (await getDb()).update(staffUsers).set({ passwordHash: await hashPassword(password) }).where(eq(staffUsers.id, me.id));
  return { caller, me, password };
}

const row = async (id: string) => (await (await getDb()).select().from(staffUsers).where(eq(staffUsers.id, id)))[0]!;
const signsIn = async (email: string, password: string) => (await authenticateStaff(await systemContext(), { business: m.merchant.slug, email, password })) !== null;
const login = (email: string) => loginKey(m.merchant.slug, email);

describe("dashboard: passwords", () => {

  it("anyone changes their own with their current one; the old one stops working and the change is stamped", async () => {
    const { caller, me, password } = await withPassword("viewer");
    expect((await row(me.id)).sessionsRevokedAt).toBeNull();
    expect(await caller.staff.changePassword({ current: password, password: "a second long passphrase" })).toEqual({ email: me.email });
    expect(await signsIn(me.email, "a second long passphrase")).toBe(true);
    expect(await signsIn(me.email, password)).toBe(false);
    expect((await row(me.id)).sessionsRevokedAt).toBeInstanceOf(Date);
  });

  it("refuses a wrong current password, a weak or unchanged new one, and changes nothing", async () => {
    const { caller, me, password } = await withPassword("developer");
    const before = await row(me.id);
    const refused = async (input: { current: string; password: string }, param: string) => {
      const e = await caller.staff.changePassword(input).catch((err: unknown) => err);
      expect(e).toMatchObject({ code: "BAD_REQUEST" });
      expect((e as { cause?: { param?: string } }).cause?.param).toBe(param);
    };
    await refused({ current: "not it at all, no", password: "a second long passphrase" }, "current");
    await refused({ current: password, password: "short" }, "password");
    await refused({ current: password, password }, "password");
    await refused({ current: password, password: `${me.email.split("@")[0]} and more` }, "password");
    expect(await refusal(caller.staff.changePassword({ current: password, password: "x".repeat(1025) }))).toBe("BAD_REQUEST");
    expect(await row(me.id)).toEqual(before);
  });

  it("guesses at the current password are limited as sign-ins are", async () => {
    restore = setEnv({ SIGN_IN_ATTEMPTS_PER_15_MIN: "3", REDIS_URL: undefined });
    resetRateLimitersForTests();
    const { caller, me, password } = await withPassword("viewer");
    for (let i = 0; i < 3; i++) expect(await refusal(caller.staff.changePassword({ current: `guess number ${i}`, password: "a second long passphrase" }))).toBe("BAD_REQUEST");
    // Even the right one now waits, as signing in would.
    expect(await refusal(caller.staff.changePassword({ current: password, password: "a second long passphrase" }))).toBe("TOO_MANY_REQUESTS");
    expect(await signsIn(me.email, password)).toBe(true);
  });

  it("two changes at once: one wins, the other is told, and the winner's password is the one that works", async () => {
    const { caller, me, password } = await withPassword("developer");
    const tries = ["the left long passphrase", "the right long passphrase"];
    const results = await Promise.allSettled(tries.map((p) => caller.staff.changePassword({ current: password, password: p })));
    expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(1);
    const winner = tries[results.findIndex((r) => r.status === "fulfilled")]!;
    expect(await signsIn(me.email, winner)).toBe(true);
    expect(await signsIn(me.email, tries.find((p) => p !== winner)!)).toBe(false);
  });

  it("an admin resets someone else's: a new one-time password that works at once, the old one dead, the change stamped", async () => {
    restore = setEnv({ SIGN_IN_ATTEMPTS_PER_15_MIN: "3", REDIS_URL: undefined });
    resetRateLimitersForTests();
    const admin = await dashboardAs(m, "admin");
    const member = await withPassword("developer");
    // They spent their attempts guessing before asking for help.
    for (let i = 0; i < 3; i++) await consumeSignInAttempt(login(member.me.email), null);
    expect((await consumeSignInAttempt(login(member.me.email), null)).ok).toBe(false);
    const reset = await admin.staff.resetPassword({ id: member.me.id, confirmPassword: STAFF_TEST_PASSWORD });
    expect((await consumeSignInAttempt(login(member.me.email), null)).ok).toBe(true);
    expect(reset).toMatchObject({ id: member.me.id, email: member.me.email, business: m.merchant.slug });
    expect(reset.password).toMatch(/^[A-Za-z0-9_-]{16}$/);
    expect(await signsIn(member.me.email, reset.password)).toBe(true);
    expect(await signsIn(member.me.email, member.password)).toBe(false);
    expect((await row(member.me.id)).sessionsRevokedAt).toBeInstanceOf(Date);
  });

  it("signing out everywhere stamps the caller's row only", async () => {
    const { caller, me } = await withPassword("viewer");
    const colleague = await withPassword("viewer");
    await caller.staff.signOutEverywhere();
    expect((await row(me.id)).sessionsRevokedAt).toBeInstanceOf(Date);
    expect((await row(colleague.me.id)).sessionsRevokedAt).toBeNull();
  });

  it("no reset of your own, of another merchant's staff, or by anyone but an admin", async () => {
    const { caller: admin, me, password } = await withPassword("admin");
    expect(await refusal(admin.staff.resetPassword({ id: me.id, confirmPassword: password }))).toBe("BAD_REQUEST");
    const theirs = (await (await dashboardAs(other, "admin")).staff.list())[0]!;
    const before = await row(theirs.id);
    expect(await refusal(admin.staff.resetPassword({ id: theirs.id, confirmPassword: password }))).toBe("NOT_FOUND");
    for (const role of ["developer", "viewer"] as const) expect(await refusal((await dashboardAs(m, role)).staff.resetPassword({ id: me.id }))).toBe("FORBIDDEN");
    expect(await row(theirs.id)).toEqual(before);
    expect((await row(me.id)).sessionsRevokedAt).toBeNull();
  });
});

describe("dashboard: one address at two businesses", () => {
  const signIn = async (business: string, email: string, password: string) =>
    (await authenticateStaff(await systemContext(), { business, email, password }))?.id ?? null;

  it("each business gives the address a login of its own, and neither admin learns of the other", async () => {
    const email = `shared-${Date.now()}@bookkeeper.example`;
    const ours = await (await dashboardAs(m, "admin")).staff.add({ email, role: "viewer", confirmPassword: STAFF_TEST_PASSWORD });
    // The second admin's answer is the same as for an address no one has: a new login, a password.
    const theirAdmin = await dashboardAs(other, "admin");
    const theirs = await theirAdmin.staff.add({ email: email.toUpperCase(), role: "developer", confirmPassword: STAFF_TEST_PASSWORD });
    const fresh = await theirAdmin.staff.add({ email: `nobody-else-${Date.now()}@bookkeeper.example`, role: "developer", confirmPassword: STAFF_TEST_PASSWORD });
    expect(Object.keys(theirs).sort()).toEqual(Object.keys(fresh).sort());
    expect(theirs).toMatchObject({ role: "developer", business: other.merchant.slug });
    expect(theirs.id).not.toBe(ours.id);
    expect(theirs.password).not.toBe(ours.password);

    // Each login signs in to its own business only, with its own password.
    expect(await signIn(m.merchant.slug, email, ours.password)).toBe(ours.id);
    expect(await signIn(other.merchant.slug.toUpperCase(), ` ${email} `, theirs.password)).toBe(theirs.id);
    expect(await signIn(m.merchant.slug, email, theirs.password)).toBeNull();
    expect(await signIn(other.merchant.slug, email, ours.password)).toBeNull();
    expect(await signIn(`no-such-business-${Date.now()}`, email, ours.password)).toBeNull();
    expect(await signIn("", email, ours.password)).toBeNull();

    // Each team lists its own login; a reset or a removal at one leaves the other as it was.
    const ourTeam = await (await dashboardAs(m, "admin")).staff.list();
    expect(ourTeam.filter((s) => s.email.toLowerCase() === email)).toEqual([expect.objectContaining({ id: ours.id, role: "viewer" })]);
    await (await dashboardAs(m, "admin")).staff.resetPassword({ id: ours.id, confirmPassword: STAFF_TEST_PASSWORD });
    await (await dashboardAs(m, "admin")).staff.remove({ id: ours.id, confirmPassword: STAFF_TEST_PASSWORD });
    expect(await signIn(other.merchant.slug, email, theirs.password)).toBe(theirs.id);
    expect((await row(theirs.id)).sessionsRevokedAt).toBeNull();
  });

  it("guesses at one business's login spend nothing of the other's", async () => {
    restore = setEnv({ SIGN_IN_ATTEMPTS_PER_15_MIN: "3", REDIS_URL: undefined });
    resetRateLimitersForTests();
    const email = `guessed-${Date.now()}@bookkeeper.example`;
    for (let i = 0; i < 3; i++) expect((await consumeSignInAttempt(loginKey(m.merchant.slug, email), null)).ok).toBe(true);
    expect((await consumeSignInAttempt(loginKey(m.merchant.slug, email.toUpperCase()), null)).ok).toBe(false);
    expect((await consumeSignInAttempt(loginKey(other.merchant.slug, email), null)).ok).toBe(true);
  });
});
