import { NextRequest } from "next/server";
import { afterEach, describe, expect, it } from "vitest";
import { GET } from "@/app/api/auth/[...nextauth]/route";
import { setEnv } from "@/server/testing/env";
import { authSecret } from "./secret";

const csrf = () => GET(new NextRequest("http://127.0.0.1:3000/api/auth/csrf"), { params: Promise.resolve({ nextauth: ["csrf"] }) });

let restore: (() => void) | undefined;
afterEach(() => restore?.());

describe("/api/auth without a session secret", () => {
  it("on PostgreSQL without NEXTAUTH_SECRET answers 503 saying what to set, not next-auth's 500", async () => {
    // The database is never reached: the secret is missing before anything is read.
    restore = setEnv({ DATABASE_URL: "postgres://postgres@127.0.0.1:1/unreached", NEXTAUTH_SECRET: undefined });
    expect(authSecret()).toBeNull();
    const res = await csrf();
    expect(res.status).toBe(503);
    expect(await res.json()).toEqual({ message: "Sign-in is not configured: set NEXTAUTH_SECRET on the server." });
  });

  it("reads the secret again when the configuration changes (e2e/dashboard signs in with one set)", () => {
    restore = setEnv({ DATABASE_URL: "postgres://postgres@127.0.0.1:1/unreached", NEXTAUTH_SECRET: undefined });
    expect(authSecret()).toBeNull();
    restore();
    restore = setEnv({ DATABASE_URL: "postgres://postgres@127.0.0.1:1/unreached", NEXTAUTH_SECRET: "s".repeat(32) });
    expect(authSecret()).toBe("s".repeat(32));
  });
});
