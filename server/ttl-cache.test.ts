import { describe, expect, it } from "vitest";
import { TtlCache } from "./ttl-cache";

describe("TtlCache", () => {
  it("answers an entry until its deadline, then forgets it", () => {
    const cache = new TtlCache<string, number>(10);
    cache.set("a", 1, 1_000);
    expect(cache.get("a", 999)).toBe(1);
    expect(cache.get("a", 1_000)).toBeUndefined();
    expect(cache.size).toBe(0);
  });

  it("keeps at most `max` entries, dropping the one stored longest ago", () => {
    const cache = new TtlCache<string, number>(2);
    cache.set("a", 1, 10);
    cache.set("b", 2, 10);
    cache.set("a", 3, 10); // stored again: now the newest
    cache.set("c", 4, 10);
    expect(cache.get("b", 0)).toBeUndefined();
    expect(cache.get("a", 0)).toBe(3);
    expect(cache.get("c", 0)).toBe(4);
    expect(cache.size).toBe(2);
  });

  it("forgets an entry at once when told", () => {
    const cache = new TtlCache<string, number>(2);
    cache.set("a", 1, 10);
    cache.delete("a");
    expect(cache.get("a", 0)).toBeUndefined();
  });
});
