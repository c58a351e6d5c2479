import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { getDb } from "@/db/client";
import { staffUsers } from "@/db/schema";
import { systemClock } from "@/server/clock";
import { newId } from "@/server/domain/ids";
import { hashPassword } from "@/server/domain/passwords";
import { loginKey } from "@/server/domain/staff";
import { consumeSignInAttempt, forgetSignInFailures, resetRateLimitersForTests } from "@/server/rate-limit";
import { setEnv } from "@/server/testing/env";
import { seedTestMerchant, type TestMerchant } from "@/server/testing/fixtures";
import { authenticateStaff } from "./authenticate-staff";
import { loadStaffSession } from "./load-staff-session";

let m: TestMerchant;
let staffId: string;
const email = `Owner-${Date.now()}@Shop.example`;
beforeAll(async () => {
  m = await seedTestMerchant();
  staffId = newId("staffUser");
  await (await getDb())
    .insert(staffUsers)
    .values({ id: staffId, merchantId: m.merchant.id, email, passwordHash: await hashPassword("correct horse battery"), role: "developer", createdAt: new Date() });
});

const base = async () => ({ db: await getDb(), clock: systemClock });

describe("staff sign-in", () => {
  it("takes the right password with the business and address in any case, and nothing else", async () => {
    const business = m.merchant.slug;
    expect((await authenticateStaff(await base(), { business: ` ${business.toUpperCase()}`, email: email.toUpperCase(), password: "correct horse battery" }))?.id).toBe(staffId);
    expect(await authenticateStaff(await base(), { business, email, password: "correct horse batteryx" })).toBeNull();
    expect(await authenticateStaff(await base(), { business, email: "nobody@shop.example", password: "correct horse battery" })).toBeNull();
    expect(await authenticateStaff(await base(), { business: "demo-of-no-one", email, password: "correct horse battery" })).toBeNull();
    expect(await authenticateStaff(await base(), { business: "", email, password: "correct horse battery" })).toBeNull();
    expect(await authenticateStaff(await base(), { business: "x".repeat(101), email, password: "correct horse battery" })).toBeNull();
    expect(await authenticateStaff(await base(), { business, email: "", password: "x" })).toBeNull();
    expect(await authenticateStaff(await base(), { business, email, password: "" })).toBeNull();
  });

  it("loads the staff member with their merchant on every request, without the password hash", async () => {
    const session = await loadStaffSession(await base(), staffId, "session-of-a-test");
    expect(session?.merchant.id).toBe(m.merchant.id);
    expect(session?.staff).toMatchObject({ id: staffId, role: "developer" });
    expect(session?.staff).not.toHaveProperty("passwordHash");
    expect(await loadStaffSession(await base(), newId("staffUser"), "session-of-a-test")).toBeNull();
  });
});

describe("sign-in attempts", () => {
  let restore: (() => void) | undefined;
  afterEach(() => {
    restore?.();
    resetRateLimitersForTests();
  });

  it("stop after the budget per login (business and address, any case), and per client address across logins", async () => {
    restore = setEnv({ SIGN_IN_ATTEMPTS_PER_15_MIN: "3", REDIS_URL: undefined });
    resetRateLimitersForTests();
    for (let i = 0; i < 3; i++) expect((await consumeSignInAttempt(loginKey("Shop", "A@shop.example"), null)).ok).toBe(true);
    const refused = await consumeSignInAttempt(loginKey(" shop ", "a@SHOP.example"), null);
    expect(refused).toMatchObject({ ok: false });
    expect(refused.ok ? 0 : refused.retryAfterSeconds).toBeGreaterThan(60);
    // The same address at another business is another login, with its own budget.
    expect((await consumeSignInAttempt(loginKey("market", "a@shop.example"), null)).ok).toBe(true);

    // A success clears the login's failures.
    await forgetSignInFailures(loginKey("shop", "a@shop.example"));
    expect((await consumeSignInAttempt(loginKey("shop", "a@shop.example"), null)).ok).toBe(true);

    // One client address gets ten times the budget, across logins.
    for (let i = 0; i < 30; i++) expect((await consumeSignInAttempt(loginKey("shop", `user${i}@shop.example`), "203.0.113.9")).ok).toBe(true);
    expect((await consumeSignInAttempt(loginKey("shop", "user99@shop.example"), "203.0.113.9")).ok).toBe(false);
    expect((await consumeSignInAttempt(loginKey("shop", "user99@shop.example"), "203.0.113.10")).ok).toBe(true);
  });
});
