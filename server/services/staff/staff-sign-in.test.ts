import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { getDb } from "@/db/client";
import { staffUsers } from "@/db/schema";
import { systemClock } from "@/server/clock";
import { newId } from "@/server/domain/ids";
import { hashPassword } from "@/server/domain/passwords";
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
  it("takes the right password with the address in any case, and nothing else", async () => {
    expect((await authenticateStaff(await base(), { email: email.toUpperCase(), password: "correct horse battery" }))?.id).toBe(staffId);
    expect(await authenticateStaff(await base(), { email, password: "correct horse batteryx" })).toBeNull();
    expect(await authenticateStaff(await base(), { email: "nobody@shop.example", password: "correct horse battery" })).toBeNull();
    expect(await authenticateStaff(await base(), { email: "", password: "x" })).toBeNull();
    expect(await authenticateStaff(await base(), { email, password: "" })).toBeNull();
  });

  it("loads the staff member with their merchant on every request, without the password hash", async () => {
    const session = await loadStaffSession(await base(), staffId);
    expect(session?.merchant.id).toBe(m.merchant.id);
    expect(session?.staff).toMatchObject({ id: staffId, role: "developer" });
    expect(session?.staff).not.toHaveProperty("passwordHash");
    expect(await loadStaffSession(await base(), newId("staffUser"))).toBeNull();
  });
});

describe("sign-in attempts", () => {
  let restore: (() => void) | undefined;
  afterEach(() => {
    restore?.();
    resetRateLimitersForTests();
  });

  it("stop after the budget per e-mail address (any case), and per client address across addresses", async () => {
    restore = setEnv({ SIGN_IN_ATTEMPTS_PER_15_MIN: "3", REDIS_URL: undefined });
    resetRateLimitersForTests();
    for (let i = 0; i < 3; i++) expect((await consumeSignInAttempt("A@shop.example", null)).ok).toBe(true);
    const refused = await consumeSignInAttempt("a@SHOP.example", null);
    expect(refused).toMatchObject({ ok: false });
    expect(refused.ok ? 0 : refused.retryAfterSeconds).toBeGreaterThan(60);

    // A success clears the address's failures.
    await forgetSignInFailures("a@shop.example");
    expect((await consumeSignInAttempt("a@shop.example", null)).ok).toBe(true);

    // One client address gets ten times the budget, across addresses.
    for (let i = 0; i < 30; i++) expect((await consumeSignInAttempt(`user${i}@shop.example`, "203.0.113.9")).ok).toBe(true);
    expect((await consumeSignInAttempt("user99@shop.example", "203.0.113.9")).ok).toBe(false);
    expect((await consumeSignInAttempt("user99@shop.example", "203.0.113.10")).ok).toBe(true);
  });
});
