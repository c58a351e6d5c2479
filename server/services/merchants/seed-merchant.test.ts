import { randomBytes } from "node:crypto";
import { and, eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { getDb } from "@/db/client";
import { apiKeys, merchants, securityEvents, staffUsers } from "@/db/schema";
import { systemClock, type Clock } from "@/server/clock";
import { verifyPassword } from "@/server/domain/passwords";
import { seedTestMerchant } from "@/server/testing/fixtures";
import { addStaffMember } from "../staff/add-staff-member";
import { seedMerchant } from "./seed-merchant";

const newSlug = () => `seed-${randomBytes(4).toString("hex")}`;
const adminOf = (slug: string) => `admin@${slug}.mari.test`;

async function staffOf(merchantId: string) {
  return (await getDb()).select().from(staffUsers).where(eq(staffUsers.merchantId, merchantId));
}

/** A clock whose n-th reading throws: the run dies there, as a process killed at that point would. */
function clockFailingAt(n: number): Clock {
  let readings = 0;
  return {
    now() {
      readings += 1;
      if (readings === n) throw new Error(`died at reading ${n}`);
      return systemClock.now();
    },
  };
}

describe("seedMerchant", () => {
  it("gives a new merchant its own admin even when another business has a member with the admin's address", async () => {
    const slug = newSlug();
    const other = await seedTestMerchant();
    const { staff: member, password: memberPassword } = await addStaffMember(await other.ctx(), { email: adminOf(slug).toUpperCase(), role: "developer" });
    const db = await getDb();

    const seeded = await seedMerchant({ db, clock: systemClock }, { slug });

    expect(seeded.staff).toEqual({ email: adminOf(slug), password: expect.any(String) });
    const [admin, ...more] = await staffOf(seeded.merchant_id);
    expect(more).toEqual([]);
    expect(admin).toMatchObject({ email: adminOf(slug), role: "admin" });
    expect(await verifyPassword(seeded.staff.password!, admin!.passwordHash)).toBe(true);
    const [untouched] = await db.select().from(staffUsers).where(eq(staffUsers.id, member.id));
    expect(untouched).toMatchObject({ merchantId: other.merchant.id, role: "developer", sessionsRevokedAt: null });
    expect(await verifyPassword(memberPassword, untouched!.passwordHash)).toBe(true);
    const added = await db.select().from(securityEvents).where(and(eq(securityEvents.action, "staff.added"), eq(securityEvents.targetId, admin!.id)));
    expect(added.map((e) => e.merchantId)).toEqual([seeded.merchant_id]);
  });

  it("with newPassword resets this merchant's admin, never another business's member with the same address", async () => {
    const slug = newSlug();
    const db = await getDb();
    const other = await seedTestMerchant();
    const { staff: member, password: memberPassword } = await addStaffMember(await other.ctx(), { email: adminOf(slug), role: "admin" });
    const first = await seedMerchant({ db, clock: systemClock }, { slug });

    const renewed = await seedMerchant({ db, clock: systemClock }, { slug, newPassword: true });

    expect(renewed.merchant_id).toBe(first.merchant_id);
    expect(renewed.staff).toEqual({ email: adminOf(slug), password: expect.any(String) });
    const [admin] = await staffOf(first.merchant_id);
    expect(await verifyPassword(renewed.staff.password!, admin!.passwordHash)).toBe(true);
    expect(admin!.sessionsRevokedAt).toBeInstanceOf(Date);
    const [untouched] = await db.select().from(staffUsers).where(eq(staffUsers.id, member.id));
    expect(untouched!.sessionsRevokedAt).toBeNull();
    expect(await verifyPassword(memberPassword, untouched!.passwordHash)).toBe(true);
    const resets = await db.select().from(securityEvents).where(eq(securityEvents.action, "staff.password_reset"));
    expect(resets.filter((e) => e.targetLabel === adminOf(slug)).map((e) => [e.merchantId, e.targetId])).toEqual([[first.merchant_id, admin!.id]]);
  });

  it("a run that dies at any point leaves nothing behind, and the next run creates the merchant and shows its password", async () => {
    const slug = newSlug();
    const db = await getDb();
    let failures = 0;
    let seeded: Awaited<ReturnType<typeof seedMerchant>> | undefined;
    for (let n = 1; !seeded && n < 100; n++) {
      try {
        seeded = await seedMerchant({ db, clock: clockFailingAt(n) }, { slug, restrictedScopes: ["payments:read"] });
      } catch (e) {
        expect(e).toMatchObject({ message: `died at reading ${n}` });
        failures += 1;
        expect(await db.select().from(merchants).where(eq(merchants.slug, slug))).toEqual([]);
        expect(await db.select().from(staffUsers).where(eq(staffUsers.email, adminOf(slug)))).toEqual([]);
      }
    }
    // Dying while the merchant, its admin or any of its three keys was being written was tried.
    expect(failures).toBeGreaterThan(4);
    expect(seeded).toMatchObject({ created: true, staff: { email: adminOf(slug), password: expect.any(String) } });
    expect(await staffOf(seeded!.merchant_id)).toHaveLength(1);
    expect(await (await getDb()).select().from(apiKeys).where(eq(apiKeys.merchantId, seeded!.merchant_id))).toHaveLength(3);
  });

  it("shows what it made before it commits: a run killed while showing leaves nothing, and the next shows a login that works", async () => {
    const slug = newSlug();
    const db = await getDb();
    const killedWhileShowing = seedMerchant({ db, clock: systemClock }, { slug, show: () => Promise.reject(new Error("killed")) });
    await expect(killedWhileShowing).rejects.toThrow("killed");
    expect(await db.select().from(merchants).where(eq(merchants.slug, slug))).toEqual([]);

    const shown: Awaited<ReturnType<typeof seedMerchant>>[] = [];
    const seeded = await seedMerchant({ db, clock: systemClock }, { slug, show: (result) => void shown.push(structuredClone(result)) });
    expect(shown).toEqual([seeded]);
    const [admin] = await staffOf(seeded.merchant_id);
    expect(await verifyPassword(shown[0]!.staff.password!, admin!.passwordHash)).toBe(true);
  });

  it("shows the password only to the run that created the admin", async () => {
    const slug = newSlug();
    const db = await getDb();
    const first = await seedMerchant({ db, clock: systemClock }, { slug });
    const again = await seedMerchant({ db, clock: systemClock }, { slug });
    expect(first).toMatchObject({ created: true, staff: { email: adminOf(slug), password: expect.any(String) } });
    expect(again).toMatchObject({ created: false, merchant_id: first.merchant_id, staff: { email: adminOf(slug) } });
    expect(again.staff.password).toBeUndefined();
    expect(await staffOf(first.merchant_id)).toHaveLength(1);
  });

  it("two seeds of one new merchant at once create it and its admin once, and only one shows the password", async () => {
    const slug = newSlug();
    const db = await getDb();
    const runs = await Promise.all([seedMerchant({ db, clock: systemClock }, { slug }), seedMerchant({ db, clock: systemClock }, { slug })]);
    expect(runs.map((r) => r.created).sort()).toEqual([false, true]);
    expect(runs.filter((r) => r.staff.password !== undefined)).toHaveLength(1);
    expect(runs[1]!.merchant_id).toBe(runs[0]!.merchant_id);
    expect(await staffOf(runs[0]!.merchant_id)).toHaveLength(1);
  });

  it("refuses an empty list of restricted scopes rather than issue no restricted key, and writes nothing", async () => {
    const slug = newSlug();
    const db = await getDb();
    await expect(seedMerchant({ db, clock: systemClock }, { slug, restrictedScopes: [] })).rejects.toMatchObject({ code: "parameter_invalid", param: "scopes" });
    expect(await db.select().from(merchants).where(eq(merchants.slug, slug))).toEqual([]);
  });
});
