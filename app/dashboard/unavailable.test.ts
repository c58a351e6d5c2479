import { NextRequest } from "next/server";
import { renderToStaticMarkup } from "react-dom/server";
import { afterEach, describe, expect, it, vi } from "vitest";
import { PAGE_MODE_HEADER, PAGE_PATH_HEADER } from "@/server/domain/staff";
import { logOf, queryFailingWith } from "@/server/testing/log";

const SESSION_ID = "session-id-of-a-staff-member-0001";

// Signed in, as next-auth reads the cookie inside Next; and the page asked for, as proxy.ts sets it.
vi.mock("next-auth", () => ({ getServerSession: async () => ({ staffId: "stf_01m8rsk97agvyyrd7hrw547qk3", marks: { signedInAt: Date.now(), revocation: 0, sessionId: SESSION_ID } }) }));
const page = vi.hoisted(() => ({ path: "/dashboard/payments?status=unresolved" }));
vi.mock("next/headers", () => ({
  cookies: async () => ({ get: () => undefined }),
  headers: async () => new Headers({ [PAGE_PATH_HEADER]: page.path }),
}));
// Loading the session fails in the database, as its query would, with the session's id among the query's parameters.
vi.mock("@/server/services/staff/load-staff-session", () => ({ loadStaffSession: (_base: unknown, _staffId: string, sessionId: string) => queryFailingWith(sessionId) }));

const { default: ShellLayout } = await import("./(shell)/layout");
const trpc = await import("../api/trpc/[trpc]/route");
const exportRoute = await import("./payments/export/route");

afterEach(() => {
  page.path = "/dashboard/payments?status=unresolved";
});

describe("the dashboard when who is signed in cannot be loaded (a fault on our side)", () => {
  it("a page says so, links back to the page asked for, and shows the reference its log line carries", async () => {
    const { result: html, text, lines } = await logOf(async () => renderToStaticMarkup(await ShellLayout({ children: "the page" })));
    expect(lines).toMatchObject([
      { msg: "dashboard page could not be loaded", reference: expect.stringMatching(/^req_/), error: { message: expect.stringMatching(/^Failed query: /), cause: { message: "division by zero" } } },
    ]);
    expect(text).not.toContain(SESSION_ID);
    expect(html).toContain("The dashboard can&#x27;t be shown just now");
    expect(html).toContain('<a href="/dashboard/payments?status=unresolved">Try again</a>');
    expect(html).toContain(lines[0]!.reference);
    expect(html).not.toContain("the page");
  });

  it("the link back is to the dashboard when the page asked for is not one of its own", async () => {
    page.path = "https://elsewhere.example/";
    const { result: html } = await logOf(async () => renderToStaticMarkup(await ShellLayout({ children: "the page" })));
    expect(html).toContain('<a href="/dashboard">Try again</a>');
  });

  it("a dashboard call answers an internal error in words, logged once, with neither the query nor its parameters sent", async () => {
    const request = new Request("http://localhost/api/trpc/overview.get", { headers: { [PAGE_MODE_HEADER]: "test" } });
    const { result: res, text, lines } = await logOf(() => trpc.GET(request));
    expect(res.status).toBe(500);
    const body = JSON.stringify(await res.json());
    expect(body).toContain("Something went wrong on our side. Try again.");
    expect(body).not.toMatch(/select|query|division/i);
    expect(lines).toMatchObject([{ msg: "dashboard call could not load its session", reference: expect.stringMatching(/^req_/) }]);
    expect(text).not.toContain(SESSION_ID);
  });

  it("the payments export answers in words with the reference, not a file", async () => {
    const { result: res, text, lines } = await logOf(() => exportRoute.GET(new NextRequest("http://localhost/dashboard/payments/export")));
    expect(res.status).toBe(500);
    expect(res.headers.get("content-type")).toBe("text/plain; charset=utf-8");
    expect(res.headers.get("content-disposition")).toBeNull();
    expect(lines).toMatchObject([{ msg: "payments export could not load its session", reference: expect.stringMatching(/^req_/) }]);
    expect(await res.text()).toContain(`report it with this reference: ${lines[0]!.reference}`);
    expect(text).not.toContain(SESSION_ID);
  });
});
