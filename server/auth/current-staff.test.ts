import { eq } from "drizzle-orm";
import type { Session } from "next-auth";
import type { JWT } from "next-auth/jwt";
import { beforeEach, describe, expect, it, vi } from "vitest";
import { getDb } from "@/db/client";
import { staffUsers } from "@/db/schema";
import { newId } from "@/server/domain/ids";
import { setEnv } from "@/server/testing/env";
import { seedTestMerchant } from "@/server/testing/fixtures";

// What next-auth hands the server for the request's cookie: here, the session its callbacks made.
const cookie = vi.hoisted(() => ({ session: null as unknown }));
vi.mock("next-auth", () => ({ getServerSession: async () => cookie.session }));
vi.mock("next/headers", () => ({ cookies: async () => ({ get: () => undefined }), headers: async () => new Headers() }));

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
async function signIn(user: { id: string; email: string; revocation?: number }): Promise<JWT> {
  const token = await jwt({ token: {}, user });
  await holdToken(token);
  return token;
}

let staffId: string;
const email = () => `member-${staffId}@test.mari.test`;
beforeEach(async () => {
  const m = await seedTestMerchant();
  staffId = newId("staffUser");
  await (await getDb()).insert(staffUsers).values({ id: staffId, merchantId: m.merchant.id, email: email(), passwordHash: "scrypt$1$1$1$x$y", role: "viewer", createdAt: new Date() });
});

const revokeSessions = async (at: Date) => (await getDb()).update(staffUsers).set({ sessionsRevokedAt: at }).where(eq(staffUsers.id, staffId));

describe("the session cookie", () => {
  it("signed in since the last revocation is the staff member", async () => {
    await signIn({ id: staffId, email: email(), revocation: 0 });
    expect((await currentStaff()).session?.staff.id).toBe(staffId);

    const at = new Date("2026-11-27T03:00:00Z");
    await revokeSessions(at);
    await signIn({ id: staffId, email: email(), revocation: at.getTime() });
    expect((await currentStaff()).session?.staff.id).toBe(staffId);
  });

  it("signed in before a revocation (a password change or reset, signing out everywhere) signs no one in", async () => {
    await signIn({ id: staffId, email: email(), revocation: 0 });
    await revokeSessions(new Date("2026-11-27T03:00:00Z"));
    expect((await currentStaff()).session).toBeNull();

    await signIn({ id: staffId, email: email(), revocation: new Date("2026-11-27T03:00:00Z").getTime() });
    await revokeSessions(new Date("2026-11-27T03:05:00Z"));
    expect((await currentStaff()).session).toBeNull();
  });

  it("signed out of signs no one in, whoever kept a copy; the staff member's other sessions go on", async () => {
    const other = await signIn({ id: staffId, email: email(), revocation: 0 });
    const token = await signIn({ id: staffId, email: email(), revocation: 0 });
    expect(token.sid).not.toBe(other.sid);
    // next-auth decodes the cookie and calls this when the browser signs out.
    await authOptions().events!.signOut!({ token } as never);
    await holdToken(token);
    expect((await currentStaff()).session).toBeNull();
    await holdToken(other);
    expect((await currentStaff()).session?.staff.id).toBe(staffId);
    // Signing out twice (two tabs) is one end.
    await authOptions().events!.signOut!({ token } as never);
  });

  it("made before sessions carried their marks signs no one in (one sign-in again after the upgrade)", async () => {
    await holdToken({ sub: staffId });
    expect((await currentStaff()).session).toBeNull();
    // Or before they carried an id, which signing out ends.
    const { sid: _sid, ...withoutId } = await signIn({ id: staffId, email: email(), revocation: 0 });
    await holdToken(withoutId);
    expect((await currentStaff()).session).toBeNull();
  });

  it("keeps its marks from sign-in: renewing it on later requests neither refreshes them nor lets it outlive SESSION_MAX_AGE_HOURS", async () => {
    const token = await signIn({ id: staffId, email: email(), revocation: 0 });
    expect(token.signedInAt).toBeTypeOf("number");
    // Every request runs the jwt callback again without a user: the token keeps what it had.
    const nineHoursAgo = Date.now() - 9 * 3_600_000;
    const renewed = await jwt({ token: { ...token, signedInAt: nineHoursAgo } });
    expect(renewed.signedInAt).toBe(nineHoursAgo);
    await holdToken(renewed);
    expect((await currentStaff()).session).toBeNull();

    await revokeSessions(new Date("2026-11-27T03:00:00Z"));
    const stale = await jwt({ token: { ...token, revocation: 0 } });
    expect(stale.revocation).toBe(0);
    await holdToken(stale);
    expect((await currentStaff()).session).toBeNull();
  });

  it("is Secure, with the __Secure- prefix, when the site is served over https", () => {
    const back = setEnv({ PUBLIC_BASE_URL: "https://pay.example.co.zw" });
    try {
      expect(authOptions().useSecureCookies).toBe(true);
    } finally {
      back();
    }
    expect(authOptions().useSecureCookies).toBe(false);
  });
});
