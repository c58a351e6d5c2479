import { describe, expect, it } from "vitest";
import { drainBatches } from "./due-batch";

describe("drainBatches", () => {
  const batches = (sizes: number[]) => {
    const left = [...sizes];
    let calls = 0;
    return {
      batch: async () => {
        calls++;
        return left.shift() ?? 0;
      },
      calls: () => calls,
    };
  };

  it("claims batch after batch while each is full, and stops at the first that is not", async () => {
    const b = batches([200, 200, 3, 200]);
    expect(await drainBatches(b.batch, 200, 60_000)).toBe(403);
    expect(b.calls()).toBe(3);
  });

  it("stops once its budget is spent, even while batches come full", async () => {
    const b = batches([200, 200, 200]);
    expect(await drainBatches(b.batch, 200, 0)).toBe(200);
    expect(b.calls()).toBe(1);
  });
});
