import { describe, expect, it } from "vitest";
import type { Db } from "./client";
import { perHandle } from "./per-handle";

describe("perHandle", () => {
  it("builds once per database handle, and again for another handle", () => {
    let builds = 0;
    const get = perHandle((db) => ({ db, n: ++builds }));
    const a = {} as Db;
    const b = {} as Db;
    expect(get(a)).toBe(get(a));
    expect(get(b).n).toBe(2);
    expect(get(a).n).toBe(1);
    expect(builds).toBe(2);
  });
});
