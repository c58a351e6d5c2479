import { eq, sql } from "drizzle-orm";
import { afterAll, describe, expect, it } from "vitest";
import { getDb, type Db } from "./client";
import { outbox } from "./schema";
import { placeholders, preparedOnce, preparedPerShape } from "./prepared-once";

const TOPIC = "test/prepared-once";
const insertStatement = (onBuild = () => {}) =>
  preparedOnce((db: Db) => {
    onBuild();
    return db
      .insert(outbox)
      .values({ id: sql.placeholder("id"), topic: TOPIC, payload: {}, createdAt: sql.placeholder("at") } as never)
      .returning({ id: outbox.id })
      .prepare("test_prepared_once_insert");
  });
const rowExists = async (id: string) => (await (await getDb()).select({ id: outbox.id }).from(outbox).where(eq(outbox.id, id))).length === 1;
let n = 0;
const newId = () => `obx_prepared_once_${process.pid}_${++n}`;

describe("preparedOnce", () => {
  afterAll(async () => {
    await (await getDb()).delete(outbox).where(eq(outbox.topic, TOPIC));
  });

  it("runs inside the transaction it is given, wherever it was built: rolled back with it, committed with it", async () => {
    const db = await getDb();
    // Built on the pool, then run inside a transaction that rolls back and one that commits.
    const pooled = insertStatement();
    const outside = newId();
    await pooled(db).execute({ id: outside, at: new Date() });
    const rolledBack = newId();
    await expect(
      db.transaction(async (tx) => {
        expect(await pooled(tx).execute({ id: rolledBack, at: new Date() })).toEqual([{ id: rolledBack }]);
        throw new Error("roll back");
      }),
    ).rejects.toThrow("roll back");
    const committed = newId();
    await db.transaction(async (tx) => void (await pooled(tx).execute({ id: committed, at: new Date() })));
    expect([await rowExists(outside), await rowExists(rolledBack), await rowExists(committed)]).toEqual([true, false, true]);

    // Built inside a transaction that rolled back, then used on the pool once that transaction is over.
    const insert = insertStatement();
    const inside = newId();
    await expect(
      db.transaction(async (tx) => {
        await insert(tx).execute({ id: inside, at: new Date() });
        throw new Error("roll back");
      }),
    ).rejects.toThrow("roll back");
    const after = newId();
    await insert(db).execute({ id: after, at: new Date() });
    expect([await rowExists(inside), await rowExists(after)]).toEqual([false, true]);
  });

  it("is built once, however many handles run it", async () => {
    const db = await getDb();
    let builds = 0;
    const insert = insertStatement(() => builds++);
    await insert(db).execute({ id: newId(), at: new Date() });
    for (let i = 0; i < 3; i++) await db.transaction(async (tx) => void (await insert(tx).execute({ id: newId(), at: new Date() })));
    expect(builds).toBe(1);
  });

  it("per shape: one statement for each shape, built the first time that shape is asked for", async () => {
    const db = await getDb();
    const built: string[] = [];
    const select = preparedPerShape(
      (withTopic: boolean) => String(withTopic),
      (first, withTopic) => {
        built.push(String(withTopic));
        const where = withTopic ? sql`${outbox.topic} = ${sql.placeholder("topic")}` : sql`true`;
        return first.select({ id: outbox.id }).from(outbox).where(sql`${outbox.id} = ${sql.placeholder("id")} and ${where}`).prepare("test_per_shape");
      },
    );
    const id = newId();
    await insertStatement()(db).execute({ id, at: new Date() });
    for (let i = 0; i < 2; i++) {
      expect(await select(db, true).execute({ id, topic: TOPIC })).toEqual([{ id }]);
      expect(await select(db, true).execute({ id, topic: "another" })).toEqual([]);
      expect(await db.transaction((tx) => select(tx, false).execute({ id }))).toEqual([{ id }]);
    }
    expect(built).toEqual(["true", "false"]);
  });

  it("placeholders: a column given as null is written as NULL, the others are filled at each run", () => {
    const values = placeholders(["a", "b"], { a: null, b: 1 }) as unknown as Record<string, unknown>;
    expect(values.b).toEqual(sql.placeholder("b"));
    expect(values.a).not.toEqual(sql.placeholder("a"));
  });
});
