import { describe, expect, it } from "vitest";
import { revocationStamp, sessionStillValid, signInPath } from "./staff";

const HOUR = 3_600_000;
const now = new Date("2026-11-27T12:00:00Z");
const revokedAt = new Date("2026-11-27T09:00:00Z");

describe("a dashboard session", () => {
  it("holds from sign-in for the session's length, however it was renewed", () => {
    expect(sessionStillValid({ signedInAt: now.getTime() - 7.9 * HOUR, revocation: 0, sessionId: "s" }, null, now, 8 * HOUR)).toBe(true);
    expect(sessionStillValid({ signedInAt: now.getTime() - 8 * HOUR - 1, revocation: 0, sessionId: "s" }, null, now, 8 * HOUR)).toBe(false);
  });

  it("ends with a revocation after its sign-in, and not with the one it signed in after", () => {
    const signedInAt = now.getTime() - HOUR;
    expect(sessionStillValid({ signedInAt, revocation: 0, sessionId: "s" }, revokedAt, now, 8 * HOUR)).toBe(false);
    expect(sessionStillValid({ signedInAt, revocation: revocationStamp(revokedAt), sessionId: "s" }, revokedAt, now, 8 * HOUR)).toBe(true);
    expect(sessionStillValid({ signedInAt, revocation: revocationStamp(revokedAt), sessionId: "s" }, new Date(revokedAt.getTime() + 1), now, 8 * HOUR)).toBe(false);
  });

  it("needs both marks as numbers, its id, and a sign-in time not in the future beyond a minute's skew", () => {
    expect(sessionStillValid({}, null, now, 8 * HOUR)).toBe(false);
    expect(sessionStillValid({ signedInAt: now.getTime(), revocation: 0 }, null, now, 8 * HOUR)).toBe(false);
    expect(sessionStillValid({ signedInAt: now.getTime() }, null, now, 8 * HOUR)).toBe(false);
    expect(sessionStillValid({ signedInAt: String(now.getTime()), revocation: 0, sessionId: "s" }, null, now, 8 * HOUR)).toBe(false);
    expect(sessionStillValid({ signedInAt: now.getTime() + 30_000, revocation: 0, sessionId: "s" }, null, now, 8 * HOUR)).toBe(true);
    expect(sessionStillValid({ signedInAt: now.getTime() + 2 * 60_000, revocation: 0, sessionId: "s" }, null, now, 8 * HOUR)).toBe(false);
  });
});

describe("signing in again", () => {
  it("comes back to the dashboard page it left, and never to anywhere else", () => {
    expect(signInPath("/dashboard/payments?status=failed")).toBe("/dashboard/sign-in?callbackUrl=%2Fdashboard%2Fpayments%3Fstatus%3Dfailed");
    expect(signInPath("https://elsewhere.example/dashboard")).toBe("/dashboard/sign-in");
    expect(signInPath(null)).toBe("/dashboard/sign-in");
  });
});
