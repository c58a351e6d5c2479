import { randomBytes } from "node:crypto";
import { and, eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { getDb } from "@/db/client";
import { securityEvents, staffUsers } from "@/db/schema";
import { systemClock } from "@/server/clock";
import { verifyPassword } from "@/server/domain/passwords";
import { seedTestMerchant } from "@/server/testing/fixtures";
import { addStaffMember } from "../staff/add-staff-member";
import { seedMerchant } from "./seed-merchant";

const newSlug = () => `seed-${randomBytes(4).toString("hex")}`;
const adminOf = (slug: string) => `admin@${slug}.mari.test`;

async function staffOf(merchantId: string) {
  return (await getDb()).select().from(staffUsers).where(eq(staffUsers.merchantId, merchantId));
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
});
