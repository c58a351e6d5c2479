import { eq } from "drizzle-orm";
import type { Session } from "next-auth";
import type { JWT } from "next-auth/jwt";
import { beforeEach, describe, expect, it, vi } from "vitest";
import { getDb } from "@/db/client";
import { staffUsers } from "@/db/schema";
import { newId } from "@/server/domain/ids";
import { seedTestMerchant } from "@/server/testing/fixtures";

// What next-auth hands the server for the request's cookie: here, the session its callbacks made.
const cookie = vi.hoisted(() => ({ session: null as unknown }));
vi.mock("next-auth", () => ({ getServerSession: async () => cookie.session }));
vi.mock("next/headers", () => ({ cookies: async () => ({ get: () => undefined }) }));

const { authOptions } = await import("./options");
const { currentStaff } = await import("./current-staff");

type Callbacks = Required<NonNullable<ReturnType<typeof authOptions>["callbacks"]>>;
const callbacks = () => authOptions().callbacks as Callbacks;
/** next-auth's jwt callback: at sign-in with the user `authorize` accepted, on later requests without. */
const jwt = async (args: { token: JWT; user?: unknown }) => (await callbacks().jwt({ account: null, ...args } as Parameters<Callbacks["jwt"]>[0])) as JWT;
/** The cookie's session as the server reads it, from the token. */
const holdToken = async (token: JWT) => {
  cookie.session = await callbacks().session({ session: { expires: "" } as Session, token } as unknown as Parameters<Callbacks["session"]>[0]);
};

/** Signs in as next-auth does after `authorize` accepts: the jwt callback, then the session one. */
async function signIn(user: { id: string; email: string; passwordStamp?: number }): Promise<void> {
  await holdToken(await jwt({ token: {}, user }));
}

let staffId: string;
const email = () => `member-${staffId}@test.mari.test`;
beforeEach(async () => {
  const m = await seedTestMerchant();
  staffId = newId("staffUser");
  await (await getDb()).insert(staffUsers).values({ id: staffId, merchantId: m.merchant.id, email: email(), passwordHash: "scrypt$1$1$1$x$y", role: "viewer", createdAt: new Date() });
});

const changePassword = async (at: Date) => (await getDb()).update(staffUsers).set({ passwordChangedAt: at }).where(eq(staffUsers.id, staffId));

describe("the session cookie and password changes", () => {
  it("a cookie signed in with the current password is the staff member", async () => {
    await signIn({ id: staffId, email: email(), passwordStamp: 0 });
    expect((await currentStaff()).session?.staff.id).toBe(staffId);

    const at = new Date("2026-11-27T03:00:00Z");
    await changePassword(at);
    await signIn({ id: staffId, email: email(), passwordStamp: at.getTime() });
    expect((await currentStaff()).session?.staff.id).toBe(staffId);
  });

  it("a cookie signed in before the password changed signs no one in", async () => {
    await signIn({ id: staffId, email: email(), passwordStamp: 0 });
    await changePassword(new Date("2026-11-27T03:00:00Z"));
    expect((await currentStaff()).session).toBeNull();

    await signIn({ id: staffId, email: email(), passwordStamp: new Date("2026-11-27T03:00:00Z").getTime() });
    await changePassword(new Date("2026-11-27T03:05:00Z"));
    expect((await currentStaff()).session).toBeNull();
  });

  it("a cookie from before stamps were kept counts as signed in with a password never changed", async () => {
    // The session callback on such a cookie's token (no stamp in it), as every request runs it.
    await holdToken({ sub: staffId });
    expect((await currentStaff()).session?.staff.id).toBe(staffId);
    await changePassword(new Date());
    expect((await currentStaff()).session).toBeNull();
  });

  it("the stamp is set at sign-in only: a later request cannot refresh it", async () => {
    await signIn({ id: staffId, email: email(), passwordStamp: 0 });
    await changePassword(new Date("2026-11-27T03:00:00Z"));
    // Every request runs the jwt callback again without a user: the token keeps what it had.
    const refreshed = await jwt({ token: { sub: staffId, passwordStamp: 0 } });
    expect(refreshed.passwordStamp).toBe(0);
    await holdToken(refreshed);
    expect((await currentStaff()).session).toBeNull();
  });
});
