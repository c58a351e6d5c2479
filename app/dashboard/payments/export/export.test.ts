import { NextRequest } from "next/server";
import { beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { getDb } from "@/db/client";
import { staffUsers } from "@/db/schema";
import { newId } from "@/server/domain/ids";
import { exportHref, type ListFilters } from "@/components/dashboard/payments/filters";
import { seedPayment, seedSucceededPayment, seedTestMerchant, type TestMerchant } from "@/server/testing/fixtures";

// The session the route sees: next-auth reads it from the request's cookie inside Next; here the
// test says who (if anyone) is signed in.
const session = vi.hoisted(() => ({ current: null as { staffId?: string; marks?: { signedInAt: number; revocation: number; sessionId: string } } | null }));
vi.mock("next-auth", () => ({ getServerSession: async () => session.current }));
// And the request's cookies (the test/live switch), which Next gives through next/headers.
const jar = vi.hoisted(() => ({ current: new Map<string, string>() }));
vi.mock("next/headers", () => ({
  cookies: async () => ({ get: (name: string) => (jar.current.has(name) ? { name, value: jar.current.get(name)! } : undefined) }),
  headers: async () => new Headers(),
}));

const { GET } = await import("./route");

async function staffOf(m: TestMerchant): Promise<string> {
  const id = newId("staffUser");
  await (await getDb()).insert(staffUsers).values({ id, merchantId: m.merchant.id, email: `viewer-${id}@test.mari.test`, passwordHash: "scrypt$1$1$1$x$y", role: "viewer", createdAt: new Date() });
  return id;
}

/** A session cookie signed in just now, as next-auth's callbacks make it (server/auth/options.ts). */
const signedIn = (staffId: string) => ({ staffId, marks: { signedInAt: Date.now(), revocation: 0, sessionId: `session-of-${staffId}` } });

const get = (query = "", cookie?: string) => {
  jar.current = new Map((cookie ?? "").split(";").filter(Boolean).map((c) => c.trim().split("=") as [string, string]));
  return GET(new NextRequest(`http://127.0.0.1/dashboard/payments/export${query}`, { headers: cookie ? { cookie } : {} }));
};

const idsOf = (csv: string) =>
  csv
    .trim()
    .split("\r\n")
    .slice(1)
    .map((line) => line.split(",")[0]);

let a: TestMerchant;
let b: TestMerchant;
beforeAll(async () => {
  a = await seedTestMerchant();
  b = await seedTestMerchant();
});
beforeEach(() => {
  session.current = null;
});

describe("GET /dashboard/payments/export", () => {
  it("sends to sign in, and back to the list it was asked from, without a session or for a staff member who no longer exists", async () => {
    const none = await get();
    expect(none.status).toBe(303);
    expect(none.headers.get("location")).toBe("/dashboard/sign-in?callbackUrl=%2Fdashboard%2Fpayments");
    expect(await none.text()).not.toContain("id,created_at");
    session.current = signedIn(newId("staffUser"));
    const fromList = await GET(
      new NextRequest("http://127.0.0.1/dashboard/payments/export?status=failed", { headers: { host: "127.0.0.1", referer: "http://127.0.0.1/dashboard/payments?status=failed" } }),
    );
    expect(fromList.status).toBe(303);
    expect(fromList.headers.get("location")).toBe(`/dashboard/sign-in?callbackUrl=${encodeURIComponent("/dashboard/payments?status=failed")}`);
    // Only the list, only on this site: never back to somewhere else.
    const elsewhere = await GET(new NextRequest("http://127.0.0.1/dashboard/payments/export", { headers: { host: "127.0.0.1", referer: "https://attacker.example/dashboard/payments?x=1" } }));
    expect(elsewhere.headers.get("location")).toBe("/dashboard/sign-in?callbackUrl=%2Fdashboard%2Fpayments");
  });

  it("streams the signed-in merchant's filtered payments as an attachment, in the mode the cookie chose", async () => {
    const unknown = await seedPayment(a, "unknown");
    const done = await seedSucceededPayment(a);
    const live = await seedSucceededPayment(a, { livemode: true });
    const theirs = await seedSucceededPayment(b);
    session.current = signedIn(await staffOf(a));

    const all = await get();
    expect(all.status).toBe(200);
    expect(all.headers.get("content-type")).toBe("text/csv; charset=utf-8");
    expect(all.headers.get("content-disposition")).toMatch(/^attachment; filename="payments-test-[\d-]+\.csv"$/);
    expect(all.body).toBeInstanceOf(ReadableStream);
    expect(idsOf(await all.text())).toEqual([done.id, unknown.id]);

    expect(idsOf(await (await get("?status=unknown")).text())).toEqual([unknown.id]);
    expect(idsOf(await (await get(`?search=${encodeURIComponent(done.reference)}`)).text())).toEqual([done.id]);
    const liveCsv = await get("", "mari_mode=live");
    expect(liveCsv.headers.get("content-disposition")).toContain("payments-live-");
    expect(idsOf(await liveCsv.text())).toEqual([live.id]);
    expect(idsOf(await (await get(`?search=${encodeURIComponent(theirs.reference)}`)).text())).toEqual([]);
  });

  it("exports what the payments page's export link selects: its days, in Harare time, and its search by id", async () => {
    const paid = await seedSucceededPayment(a);
    session.current = signedIn(await staffOf(a));
    const harareDay = (at: Date) => new Intl.DateTimeFormat("en-CA", { timeZone: "Africa/Harare" }).format(at);
    const today = harareDay(paid.createdAt);
    const yesterday = harareDay(new Date(paid.createdAt.getTime() - 86_400_000));
    const exported = async (f: ListFilters) => idsOf(await (await get(exportHref(f).replace("/dashboard/payments/export", ""))).text());

    expect(await exported({ from: today, to: today, q: paid.id })).toEqual([paid.id]);
    expect(await exported({ to: yesterday, q: paid.id })).toEqual([]);
    expect(await exported({ from: today, q: paid.reference })).toEqual([paid.id]);
  });

  it("exports the mode the page showed when its link says, whatever another tab switched the cookie to since", async () => {
    const test = await seedSucceededPayment(a);
    const live = await seedSucceededPayment(a, { livemode: true });
    session.current = signedIn(await staffOf(a));
    const fromTestPage = await get(exportHref({ q: test.reference }, false).replace("/dashboard/payments/export", ""), "mari_mode=live");
    expect(fromTestPage.headers.get("content-disposition")).toContain("payments-test-");
    expect(idsOf(await fromTestPage.text())).toEqual([test.id]);
    const fromLivePage = await get(exportHref({ q: live.reference }, true).replace("/dashboard/payments/export", ""));
    expect(fromLivePage.headers.get("content-disposition")).toContain("payments-live-");
    expect(idsOf(await fromLivePage.text())).toEqual([live.id]);
  });

  it("refuses filters it does not know", async () => {
    session.current = signedIn(await staffOf(a));
    expect((await get("?mode=staging")).status).toBe(400);
    expect((await get("?status=lost")).status).toBe(400);
    expect((await get("?merchant=someone-else")).status).toBe(400);
  });
});
