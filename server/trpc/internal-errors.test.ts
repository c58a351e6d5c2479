import { TRPCError } from "@trpc/server";
import { describe, expect, it, vi } from "vitest";
import { seedTestMerchant } from "@/server/testing/fixtures";
import { logOf, queryFailingWith } from "@/server/testing/log";
import { dashboardAs } from "./testing";

// The overview's one service call fails as a query of it would fail in the database, with a
// customer's number among the query's parameters.
vi.mock("@/server/services/overview/get-overview", () => ({ getOverview: () => queryFailingWith("263779876543") }));

describe("a dashboard call that fails on our side", () => {
  it("is an internal error, logged with the procedure, the query and its reason, without the query's parameters", async () => {
    const caller = await dashboardAs(await seedTestMerchant(), "viewer");
    const { result, text, lines } = await logOf(() => caller.overview.get().then(() => null, (e: unknown) => e));
    expect(result).toBeInstanceOf(TRPCError);
    expect((result as TRPCError).code).toBe("INTERNAL_SERVER_ERROR");
    expect(lines.filter((l) => l.msg === "dashboard call failed")).toMatchObject([
      { path: "overview.get", error: { message: expect.stringMatching(/^Failed query: select /), cause: { message: "division by zero" } } },
    ]);
    expect(text).not.toContain("779876543");
  });
});
