import { beforeEach, describe, expect, it } from "vitest";
import { authenticateStaff } from "@/server/services/staff/authenticate-staff";
import { systemContext } from "@/server/system-context";
import { seedTestMerchant, type TestMerchant } from "@/server/testing/fixtures";
import { dashboardAs, refusal } from "../testing";

let m: TestMerchant;
let other: TestMerchant;
beforeEach(async () => {
  m = await seedTestMerchant();
  other = await seedTestMerchant();
});


describe("dashboard: team", () => {
  it("an admin adds a member whose one-time password signs in, changes their role and removes them", async () => {
    const admin = await dashboardAs(m, "admin");
    const email = `ana-${Date.now()}@shop.example`;
    const added = await admin.staff.add({ email, role: "viewer" });
    expect(added.password.length).toBeGreaterThanOrEqual(16);
    expect((await authenticateStaff(await systemContext(), { email, password: added.password }))?.id).toBe(added.id);
    expect((await admin.staff.list()).map((s) => s.email)).toContain(email);

    expect(await admin.staff.changeRole({ id: added.id, role: "developer" })).toMatchObject({ role: "developer" });
    await admin.staff.remove({ id: added.id });
    expect((await admin.staff.list()).map((s) => s.email)).not.toContain(email);
    expect(await authenticateStaff(await systemContext(), { email, password: added.password })).toBeNull();
  });

  it("refuses a taken address, a bad address, removing yourself and leaving no admin", async () => {
    const admin = await dashboardAs(m, "admin");
    const me = (await admin.staff.list()).find((s) => s.you)!;
    const email = `dup-${Date.now()}@shop.example`;
    await admin.staff.add({ email, role: "viewer" });
    expect(await refusal(admin.staff.add({ email: email.toUpperCase(), role: "viewer" }))).toBe("BAD_REQUEST");
    expect(await refusal(admin.staff.add({ email: "not an address", role: "viewer" }))).toBe("BAD_REQUEST");
    expect(await refusal(admin.staff.remove({ id: me.id }))).toBe("BAD_REQUEST");
    expect(await refusal(admin.staff.changeRole({ id: me.id, role: "viewer" }))).toBe("BAD_REQUEST");
  });

  it("only admins change the team, and never another merchant's", async () => {
    const theirAdmin = await dashboardAs(other, "admin");
    const theirs = (await theirAdmin.staff.list())[0]!;
    const admin = await dashboardAs(m, "admin");
    expect(await refusal(admin.staff.changeRole({ id: theirs.id, role: "viewer" }))).toBe("NOT_FOUND");
    expect(await refusal(admin.staff.remove({ id: theirs.id }))).toBe("NOT_FOUND");
    expect((await admin.staff.list()).map((s) => s.id)).not.toContain(theirs.id);

    for (const role of ["developer", "viewer"] as const) {
      const caller = await dashboardAs(m, role);
      expect(await refusal(caller.staff.add({ email: `x-${role}-${Date.now()}@shop.example`, role: "admin" }))).toBe("FORBIDDEN");
      expect(await refusal(caller.staff.remove({ id: theirs.id }))).toBe("FORBIDDEN");
      expect((await caller.staff.list()).length).toBeGreaterThan(0);
    }
  });

  it("admins demoting each other all at once always leave one admin (PostgreSQL: the merchant row queues them)", async () => {
    const admins = await Promise.all(Array.from({ length: 8 }, () => dashboardAs(m, "admin")));
    const ids = await Promise.all(admins.map(async (a) => (await a.staff.list()).find((s) => s.you)!.id));
    // Each demotes the next one round the circle, all at once.
    const results = await Promise.allSettled(admins.map((a, i) => a.staff.changeRole({ id: ids[(i + 1) % ids.length]!, role: "viewer" })));
    expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(7);
    expect((await admins[0]!.staff.list()).filter((s) => s.role === "admin")).toHaveLength(1);
  });
});
