import { describe, expect, it, vi } from "vitest";
import { PAGE_MODE_HEADER } from "@/server/domain/staff";
import { seedTestMerchant } from "@/server/testing/fixtures";
import { dashboardAs, refusal, STAFF_TEST_PASSWORD } from "./testing";

// The cookie's side of the request, as currentStaff reads it; this test is about the header.
vi.mock("@/server/auth/current-staff", async (actual) => ({
  ...(await actual<typeof import("@/server/auth/current-staff")>()),
  currentStaff: async () => ({ base: null, session: null, livemode: true, clientAddress: null }),
}));
const { createTrpcContext } = await import("./context");

describe("a dashboard tab after the test/live switch changed in another", () => {
  it("reads the mode the calling page was drawn in from its header, and nothing else", async () => {
    const ctx = async (value?: string) =>
      (await createTrpcContext({ req: new Request("http://localhost/api/trpc/x", { headers: value === undefined ? {} : { [PAGE_MODE_HEADER]: value } }) } as never))
        .pageLivemode;
    expect(await ctx("live")).toBe(true);
    expect(await ctx("test")).toBe(false);
    expect(await ctx()).toBeUndefined();
    expect(await ctx("LIVE")).toBeUndefined();
  });

  it("is refused, reads and writes alike, rather than act in the environment its page does not show", async () => {
    const m = await seedTestMerchant();
    // The cookie now says live; the tab's page was drawn in test mode.
    const staleTab = await dashboardAs(m, "developer", true, { pageLivemode: false });
    expect(await refusal(staleTab.paymentLinks.create({ amount: 2_500, currency: "USD", description: "Ticket" }))).toBe("PRECONDITION_FAILED");
    const error = await staleTab.apiKeys.list({}).catch((e: unknown) => e as Error);
    expect(error).toBeInstanceOf(Error);
    expect((error as Error).message).toBe("This page shows test data, but live mode was chosen in another tab. Reload the page to work in live mode.");
    // Nothing was made in either environment.
    const liveTab = await dashboardAs(m, "developer", true, { pageLivemode: true });
    expect((await liveTab.paymentLinks.list({})).data).toEqual([]);
    expect((await (await dashboardAs(m, "developer", false, { pageLivemode: false })).paymentLinks.list({})).data).toEqual([]);
    // Reloaded, the page is drawn in live mode and its calls go through.
    expect(await liveTab.apiKeys.create({ kind: "secret", name: "till", confirmPassword: STAFF_TEST_PASSWORD })).toMatchObject({ key: { livemode: true } });
  });
});
