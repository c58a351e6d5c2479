import { afterEach, describe, expect, it, vi } from "vitest";
import type { NextRequest } from "next/server";
import { setEnv } from "@/server/testing/env";

/** The route as a fresh process with `vars` set loads it (the Inngest client reads its keys once). */
async function routeWith(vars: Record<string, string | undefined>) {
  restore = setEnv(vars);
  vi.resetModules();
  return import("./route");
}
let restore = () => {};
afterEach(() => restore());

const call = (handler: (r: NextRequest, c: unknown) => Promise<Response>, method: string, body?: string) =>
  handler(new Request("http://127.0.0.1:3000/api/inngest", { method, body, headers: body ? { "content-type": "application/json" } : {} }) as NextRequest, {});

const NO_INNGEST = { INNGEST_EVENT_KEY: undefined, INNGEST_SIGNING_KEY: undefined, INNGEST_DEV: undefined, INNGEST_BASE_URL: undefined };

describe("/api/inngest", () => {
  it("is not there while the local runner drives the timers: 404 to every method, not the SDK's 500", async () => {
    const route = await routeWith(NO_INNGEST);
    for (const [handler, method] of [
      [route.GET, "GET"],
      [route.POST, "POST"],
      [route.PUT, "PUT"],
    ] as const) {
      const res = await call(handler, method, method === "GET" ? undefined : "{}");
      expect(res.status).toBe(404);
    }
  });

  it("with Inngest configured, a body that is not JSON is 400, not a bare 500", async () => {
    const route = await routeWith({ ...NO_INNGEST, INNGEST_EVENT_KEY: "test-event-key", INNGEST_SIGNING_KEY: `signkey-test-${"ab".repeat(32)}` });
    const res = await call(route.POST, "POST", "x");
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ message: "The body is not JSON." });
  });
});
