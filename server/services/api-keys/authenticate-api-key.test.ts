import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { getDb } from "@/db/client";
import { apiKeys } from "@/db/schema";
import { manualClock } from "@/server/clock";
import { hashKey } from "@/server/domain/api-keys";
import { seedTestMerchant } from "@/server/testing/fixtures";
import type { Db } from "@/db/client";
import { authenticateApiKey } from "./authenticate-api-key";
import { createApiKey } from "./create-api-key";
import { revokeApiKey } from "./revoke-api-key";

describe("authenticateApiKey", () => {
  it("remembers a valid key for the cache TTL; a revocation elsewhere takes effect within it", async () => {
    const db = await getDb();
    const m = await seedTestMerchant();
    const clock = manualClock(new Date());
    const ctx = { db, clock };
    expect((await authenticateApiKey(ctx, m.keys.test)).merchant.id).toBe(m.merchant.id);

    // Another instance revokes the key: this process still has it for at most the TTL (5 s).
    await db.update(apiKeys).set({ revokedAt: clock.now() }).where(eq(apiKeys.hash, hashKey(m.keys.test)));
    await expect(authenticateApiKey(ctx, m.keys.test)).resolves.toBeDefined();
    clock.advance(5_001);
    await expect(authenticateApiKey(ctx, m.keys.test)).rejects.toMatchObject({ code: "api_key_invalid" });
  });

  it("forgets a key revoked in this process at once", async () => {
    const db = await getDb();
    const m = await seedTestMerchant();
    const clock = manualClock(new Date());
    const { key } = await authenticateApiKey({ db, clock }, m.keys.live);
    await revokeApiKey({ db, clock, merchant: m.merchant, actor: { type: "system", job: "test" } }, key.id);
    await expect(authenticateApiKey({ db, clock }, m.keys.live)).rejects.toMatchObject({ code: "api_key_invalid" });
  });

  it("does not remember a key read just before this process revoked it", async () => {
    const db = await getDb();
    const m = await seedTestMerchant();
    const clock = manualClock(new Date());
    const other = await createApiKey({ db, clock, actor: { type: "system", job: "test" } }, { merchantId: m.merchant.id, kind: "secret", livemode: false, name: "racing" });
    // This lookup reads the key's row; its revocation commits (and is forgotten here) before the
    // lookup's answer comes back.
    const racing = {
      ...db,
      select: (...columns: Parameters<Db["select"]>) => ({
        from: (...from: Parameters<ReturnType<Db["select"]>["from"]>) => ({
          innerJoin: (...join: Parameters<ReturnType<ReturnType<Db["select"]>["from"]>["innerJoin"]>) => ({
            where: async (...where: Parameters<ReturnType<ReturnType<ReturnType<Db["select"]>["from"]>["innerJoin"]>["where"]>) => {
              const rows = await db.select(...columns).from(...from).innerJoin(...join).where(...where);
              await revokeApiKey({ db, clock, merchant: m.merchant, actor: { type: "system", job: "test" } }, other.key.id);
              return rows;
            },
          }),
        }),
      }),
      update: db.update.bind(db),
    } as unknown as Db;
    // Read before the revocation: this request goes through, as it would have a moment earlier.
    await expect(authenticateApiKey({ db: racing, clock }, other.secret)).resolves.toBeDefined();
    await expect(authenticateApiKey({ db, clock }, other.secret)).rejects.toMatchObject({ code: "api_key_invalid" });
  });

  it("never remembers unknown keys", async () => {
    const db = await getDb();
    const clock = manualClock(new Date());
    const ghost = `sk_test_${"a".repeat(32)}`;
    await expect(authenticateApiKey({ db, clock }, ghost)).rejects.toMatchObject({ code: "api_key_invalid" });
    await expect(authenticateApiKey({ db, clock }, ghost)).rejects.toMatchObject({ code: "api_key_invalid" });
  });
});
