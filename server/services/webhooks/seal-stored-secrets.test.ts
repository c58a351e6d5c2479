import { randomBytes } from "node:crypto";
import { eq, sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { getDb } from "@/db/client";
import { webhookEndpoints } from "@/db/schema";
import { newId } from "@/server/domain/ids";
import { seedTestMerchant } from "@/server/testing/fixtures";
import { dataKey } from "@/server/data-key";
import { dataKeyOpensStoredSecrets, sealStoredSecrets } from "./seal-stored-secrets";

type Raw = { secret: string; previous_secret: string | null };
const rawRow = async (id: string): Promise<Raw> => {
  const db = await getDb();
  const result = (await db.execute(sql`select secret, previous_secret from webhook_endpoints where id = ${id}`)) as unknown as { rows?: Raw[] } | Raw[];
  return (Array.isArray(result) ? result : result.rows!)[0]!;
};

describe("webhook signing secrets at rest", () => {
  it("are written sealed and read back in plain; secrets stored before sealing are sealed at start-up", async () => {
    const db = await getDb();
    const m = await seedTestMerchant();
    const now = new Date();
    const [made] = await db
      .insert(webhookEndpoints)
      .values({ id: newId("webhookEndpoint"), merchantId: m.merchant.id, livemode: false, url: "https://example.com/hooks", enabledEvents: ["*"], secret: "whsec_new", createdAt: now, updatedAt: now })
      .returning();
    expect(made!.secret).toBe("whsec_new");
    expect((await rawRow(made!.id)).secret).toMatch(/^sealed:v1:/);

    // An endpoint from before sealing: plain text in both columns.
    const legacy = newId("webhookEndpoint");
    await db.execute(sql`
      insert into webhook_endpoints (id, merchant_id, livemode, url, enabled_events, secret, previous_secret, created_at, updated_at)
      values (${legacy}, ${m.merchant.id}, false, 'https://example.com/old', ${"{*}"}, 'whsec_old', 'whsec_older', now(), now())`);
    const [before] = await db.select().from(webhookEndpoints).where(eq(webhookEndpoints.id, legacy));
    expect(before).toMatchObject({ secret: "whsec_old", previousSecret: "whsec_older" });

    expect(await sealStoredSecrets(db)).toBeGreaterThanOrEqual(1);
    const raw = await rawRow(legacy);
    expect(raw.secret).toMatch(/^sealed:v1:/);
    expect(raw.previous_secret).toMatch(/^sealed:v1:/);
    const [after] = await db.select().from(webhookEndpoints).where(eq(webhookEndpoints.id, legacy));
    expect(after).toMatchObject({ secret: "whsec_old", previousSecret: "whsec_older" });
    expect(await sealStoredSecrets(db)).toBe(0);
  });
});

describe("the data key at start-up", () => {
  it("opens the stored secrets with the key they were sealed with, and not with another", async () => {
    const db = await getDb();
    const m = await seedTestMerchant();
    const now = new Date();
    await db
      .insert(webhookEndpoints)
      .values({ id: newId("webhookEndpoint"), merchantId: m.merchant.id, livemode: false, url: "https://example.com/k", enabledEvents: ["*"], secret: "whsec_k", createdAt: now, updatedAt: now });
    expect(await dataKeyOpensStoredSecrets(db)).toBe(true);
    expect(await dataKeyOpensStoredSecrets(db, dataKey())).toBe(true);
    expect(await dataKeyOpensStoredSecrets(db, randomBytes(32))).toBe(false);
  });
  it("leave alone a secret another instance rolls while they are sealed: its roll is not undone", async () => {
    const db = await getDb();
    const m = await seedTestMerchant();
    const id = newId("webhookEndpoint");
    await db.execute(sql`
      insert into webhook_endpoints (id, merchant_id, livemode, url, enabled_events, secret, previous_secret, created_at, updated_at)
      values (${id}, ${m.merchant.id}, false, 'https://example.com/legacy', ${"{*}"}, 'whsec_old', 'whsec_older', now(), now())`);

    // The roll holds the row (as rollEndpointSecret does) while this instance starts and seals.
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let locked!: () => void;
    const isLocked = new Promise<void>((resolve) => (locked = resolve));
    const roll = db.transaction(async (tx) => {
      await tx.select({ id: webhookEndpoints.id }).from(webhookEndpoints).where(eq(webhookEndpoints.id, id)).for("update");
      await tx.update(webhookEndpoints).set({ secret: "whsec_rolled", previousSecret: "whsec_old" }).where(eq(webhookEndpoints.id, id));
      locked();
      await held;
    });
    await isLocked;
    const sealing = sealStoredSecrets(db);
    await new Promise((resolve) => setTimeout(resolve, 200));
    release();
    await roll;
    await sealing;

    // The merchant was shown the rolled secret once; the old one signs beside it for 24 h.
    const [after] = await db.select().from(webhookEndpoints).where(eq(webhookEndpoints.id, id));
    expect({ secret: after!.secret, previousSecret: after!.previousSecret }).toEqual({ secret: "whsec_rolled", previousSecret: "whsec_old" });
    expect((await rawRow(id)).secret).toMatch(/^sealed:v1:/);
  });
});
