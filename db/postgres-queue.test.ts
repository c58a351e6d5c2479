import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { describe, expect, it } from "vitest";

// postgres-js keeps its connections in queues (idle, busy, …) and moves a connection between
// them on every query. Its queue kept every slot it had ever shifted until it was empty, and the
// idle queue of a busy pool never is: the array grew by one slot per query (22,709 after 11 s
// of creates) and every move scanned it. patches/postgres+3.4.9.patch (applied by `npm install`
// through patch-package) drops the shifted slots once they are half of the array.
const COPIES = ["src", "cjs/src", "cf/src"].map((dir) => path.resolve("node_modules/postgres", dir, "queue.js"));

type Queue<T> = { readonly length: number; push(x: T): T; shift(): T | undefined; remove(x: T): T | null };
const makeQueue = createRequire(import.meta.url)(COPIES[1]!) as <T>(initial?: T[]) => Queue<T>;

describe("postgres-js connection queue (patched)", () => {
  it("is patched in every build of the package", () => {
    for (const file of COPIES) expect(readFileSync(file, "utf8"), file).toContain("xs = xs.slice(index)");
  });

  it("stays first-in first-out, with removals, through compactions of a queue that never empties", () => {
    const q = makeQueue<number>([0, 1, 2]);
    const model = [0, 1, 2];
    let next = 3;
    for (let round = 0; round < 50_000; round++) {
      q.push(next);
      model.push(next++);
      if (round % 7 === 0) {
        // Take one out of the middle, as a connection leaves the idle queue when it closes.
        const victim = model[Math.floor(model.length / 2)]!;
        expect(q.remove(victim)).toBe(victim);
        model.splice(model.indexOf(victim), 1);
      }
      expect(q.shift()).toBe(model.shift());
      expect(q.length).toBe(model.length);
    }
    expect(q.remove(-1)).toBeNull();
    while (model.length) expect(q.shift()).toBe(model.shift());
    expect(q.length).toBe(0);
  });

  it("does not find an item it has already shifted", () => {
    const q = makeQueue<string>();
    for (let i = 0; i < 200; i++) q.push(`c${i}`);
    for (let i = 0; i < 150; i++) q.shift();
    expect(q.remove("c10")).toBeNull();
    expect(q.remove("c160")).toBe("c160");
    expect(q.length).toBe(49);
  });
});
