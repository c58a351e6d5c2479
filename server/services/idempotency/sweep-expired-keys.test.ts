import { and, eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { getDb } from "@/db/client";
import { idempotencyKeys } from "@/db/schema";
import { manualClock } from "@/server/clock";
import { seedTestMerchant } from "@/server/testing/fixtures";
import { sweepExpiredIdempotencyKeys } from "./sweep-expired-keys";

describe("sweepExpiredIdempotencyKeys", () => {
  it("deletes records past their 24 h and keeps the rest, even under the same key", async () => {
    const db = await getDb();
    const [a, b] = await Promise.all([seedTestMerchant(), seedTestMerchant()]);
    const now = new Date();
    const row = (merchantId: string, key: string, expiresAt: Date) => ({
      merchantId,
      livemode: false,
      key,
      requestHash: "h",
      state: "completed" as const,
      lockedAt: now,
      responseStatus: 201,
      responseBody: "{}",
      createdAt: new Date(expiresAt.getTime() - 86_400_000),
      expiresAt,
    });
    const past = new Date(now.getTime() - 1_000);
    const future = new Date(now.getTime() + 3_600_000);
    await db.insert(idempotencyKeys).values([row(a!.merchant.id, "shared", past), row(b!.merchant.id, "shared", future), row(a!.merchant.id, "fresh", future)]);

    // Other test files' expired records may go too (a shared database): count only ours below.
    await sweepExpiredIdempotencyKeys({ db, clock: manualClock(now) }, 10_000);
    const left = async (merchantId: string, key: string) =>
      (await db.select().from(idempotencyKeys).where(and(eq(idempotencyKeys.merchantId, merchantId), eq(idempotencyKeys.key, key)))).length;
    expect(await left(a!.merchant.id, "shared")).toBe(0);
    expect(await left(b!.merchant.id, "shared")).toBe(1);
    expect(await left(a!.merchant.id, "fresh")).toBe(1);
  });
});
