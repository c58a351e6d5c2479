import { describe, expect, it } from "vitest";
import { seedTestMerchant } from "@/server/testing/fixtures";
import { createApiKey } from "./create-api-key";
import { listApiKeys } from "./list-api-keys";
import { revokeApiKey } from "./revoke-api-key";

describe("listApiKeys", () => {
  it("lists the merchant's keys of one environment, newest first, without their hashes", async () => {
    const m = await seedTestMerchant();
    const other = await seedTestMerchant();
    const ctx = await m.ctx();
    const restricted = await createApiKey(ctx, { merchantId: m.merchant.id, livemode: false, kind: "restricted", scopes: ["payments:read"], name: "reporting" });
    await createApiKey(ctx, { merchantId: other.merchant.id, livemode: false, kind: "secret" });

    const page = await listApiKeys(ctx, { limit: 10 });
    // The fixture's test key, then the restricted one; the live key is in the other environment.
    expect(page.data.map((k) => k.id)).toHaveLength(2);
    expect(page.data[0]).toMatchObject({ id: restricted.key.id, kind: "restricted", scopes: ["payments:read"], name: "reporting", revokedAt: null });
    expect(page.data.every((k) => !("hash" in k))).toBe(true);
    expect(page.data.every((k) => k.livemode === false)).toBe(true);

    const first = await listApiKeys(ctx, { limit: 1 });
    expect(first.hasMore).toBe(true);
    const next = await listApiKeys(ctx, { limit: 1, startingAfter: first.data[0]!.id });
    expect(next.data[0]!.id).toBe(page.data[1]!.id);
    expect(next.hasMore).toBe(false);

    expect((await listApiKeys(await m.ctx(true), { limit: 10 })).data.every((k) => k.livemode)).toBe(true);
  });
});

describe("revokeApiKey with an environment", () => {
  it("treats a key of the other environment or another merchant as missing", async () => {
    const m = await seedTestMerchant();
    const other = await seedTestMerchant();
    const live = await createApiKey(await m.ctx(true), { merchantId: m.merchant.id, livemode: true, kind: "secret" });
    const theirs = await createApiKey(await other.ctx(), { merchantId: other.merchant.id, livemode: false, kind: "secret" });
    await expect(revokeApiKey(await m.ctx(false), live.key.id)).rejects.toMatchObject({ code: "resource_missing" });
    await expect(revokeApiKey(await m.ctx(false), theirs.key.id)).rejects.toMatchObject({ code: "resource_missing" });
    const revoked = await revokeApiKey(await m.ctx(true), live.key.id);
    expect(revoked.revokedAt).not.toBeNull();
    // Twice is harmless and keeps the first time.
    expect((await revokeApiKey(await m.ctx(true), live.key.id)).revokedAt).toEqual(revoked.revokedAt);
  });
});
