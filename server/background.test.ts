import { AsyncLocalStorage } from "node:async_hooks";
import { describe, expect, it } from "vitest";
import { BackgroundScope } from "./background";

const request = new AsyncLocalStorage<{ id: string }>();
const fired = (start: (fn: () => void) => void) => new Promise<{ id: string } | undefined>((resolve) => start(() => resolve(request.getStore())));

describe("BackgroundScope", () => {
  it("starts timers outside the context of the request that starts them", async () => {
    const scope = new BackgroundScope("test");
    const plain = await request.run({ id: "req_1" }, () => fired((fn) => setTimeout(fn, 1)));
    const background = await request.run({ id: "req_2" }, () => fired((fn) => scope.setTimeout(fn, 1)));
    // A plain timer carries (and keeps alive) the request's context; the scope's does not.
    expect(plain).toEqual({ id: "req_1" });
    expect(background).toBeUndefined();
  });

  it("returns the timer, which can be cleared", async () => {
    const scope = new BackgroundScope("test");
    let ran = false;
    clearTimeout(scope.setTimeout(() => (ran = true), 1));
    await new Promise((r) => setTimeout(r, 20));
    expect(ran).toBe(false);
  });
});
