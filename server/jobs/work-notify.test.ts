import { describe, expect, it } from "vitest";
import { getDb, listenForWork } from "@/db/client";
import { systemClock } from "@/server/clock";
import { transitionPayment } from "@/server/services/payments/transition-payment";
import { seedPayment, seedTestMerchant } from "@/server/testing/fixtures";

describe("LISTEN for new work", () => {
  it("a committed event wakes listeners, through the database rather than this process", async () => {
    const m = await seedTestMerchant();
    const db = await getDb();
    let woken = 0;
    const stop = await listenForWork(() => woken++);
    try {
      const p = await seedPayment(m, "awaiting_customer");
      const before = woken;
      await transitionPayment({ db, clock: systemClock }, { paymentId: p.id, to: "succeeded" });
      await expect.poll(() => woken, { timeout: 5_000 }).toBeGreaterThan(before);
    } finally {
      await stop();
    }
  });
});
