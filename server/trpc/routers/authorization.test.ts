import { beforeAll, describe, expect, it } from "vitest";
import { seedTestMerchant, type TestMerchant } from "@/server/testing/fixtures";
import { dashboardAs, dashboardSignedOut, refusal } from "../testing";
import { appRouter } from "./_app";

/**
 * Over every procedure the dashboard has, whatever area added it: none answers someone signed
 * out, and no viewer changes anything. (Each area's own tests check merchant and environment
 * isolation with real objects.)
 */
type Procedure = { _def: { type: "query" | "mutation" | "subscription" } };
// At run time tRPC keeps them flat, by dotted path.
const procedures = Object.entries(appRouter._def.procedures as unknown as Record<string, Procedure>);

/** Mutations a viewer may run: on themselves only. */
const VIEWER_MUTATIONS: string[] = ["staff.changePassword", "staff.signOutEverywhere"];

function call(caller: unknown, path: string): Promise<unknown> {
  const fn = path.split(".").reduce<unknown>((node, part) => (node as Record<string, unknown>)[part], caller) as (input: unknown) => Promise<unknown>;
  return fn({});
}

let m: TestMerchant;
beforeAll(async () => {
  m = await seedTestMerchant();
});

describe("every dashboard procedure", () => {
  it("exists (the list this test walks is not empty)", () => {
    expect(procedures.length).toBeGreaterThan(3);
  });

  it.each(procedures.map(([path]) => path))("%s refuses someone signed out", async (path) => {
    expect(await refusal(call(await dashboardSignedOut(), path))).toBe("UNAUTHORIZED");
  });

  const mutations = procedures.filter(([path, p]) => p._def.type === "mutation" && !VIEWER_MUTATIONS.includes(path)).map(([path]) => path);
  it.each(mutations.length ? mutations : ["(none yet)"])("%s refuses a viewer", async (path) => {
    if (path === "(none yet)") return;
    expect(await refusal(call(await dashboardAs(m, "viewer"), path))).toBe("FORBIDDEN");
  });
});
