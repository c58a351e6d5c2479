import { randomBytes } from "node:crypto";
import { entityKind, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getDb, type Db } from "./client";
import { rowsOf } from "./rows";
import { afterCommit, inTransaction, isTransaction } from "./transaction";

const table = sql.raw(`tx_probe_${randomBytes(4).toString("hex")}`);

async function ids(): Promise<string[]> {
  const db = await getDb();
  return rowsOf<{ id: string }>(await db.execute(sql`select id from ${table} order by id`)).map((r) => r.id);
}

describe("inTransaction", () => {
  beforeAll(async () => {
    await (await getDb()).execute(sql`create table ${table} (id text primary key)`);
  });
  afterAll(async () => {
    await (await getDb()).execute(sql`drop table ${table}`);
  });

  it("opens a transaction when given the database, and rolls it back on failure", async () => {
    const db = await getDb();
    expect(isTransaction(db)).toBe(false);
    await inTransaction(db, async (tx) => {
      expect(isTransaction(tx)).toBe(true);
      await tx.execute(sql`insert into ${table} values ('kept')`);
    });
    await expect(
      inTransaction(db, async (tx) => {
        await tx.execute(sql`insert into ${table} values ('rolled-back')`);
        throw new Error("boom");
      }),
    ).rejects.toThrow("boom");
    expect(await ids()).toEqual(["kept"]);
  });

  it("knows a transaction of another copy of drizzle (the production build holds several) by its kind", async () => {
    const db = await getDb();
    await db.transaction(async (tx) => {
      // Classes of the same kinds that are not the ones this module's drizzle made: as another copy's are.
      class OtherCopyPgTransaction {
        static readonly [entityKind]: string = "PgTransaction";
      }
      class OtherCopyDriverTransaction extends OtherCopyPgTransaction {
        static override readonly [entityKind]: string = (tx.constructor as unknown as Record<symbol, string>)[entityKind]!;
      }
      expect(isTransaction(Object.assign(new OtherCopyDriverTransaction(), tx) as unknown as Db)).toBe(true);
      expect(isTransaction({ ...tx } as unknown as Db)).toBe(false);
    });
  });

  it("runs in the caller's transaction when given one: no savepoint, so a failure undoes the caller's writes too", async () => {
    const db = await getDb();
    await expect(
      db.transaction(async (tx) => {
        await tx.execute(sql`insert into ${table} values ('outer')`);
        await inTransaction(tx, async (inner) => {
          expect(inner).toBe(tx);
          await inner.execute(sql`insert into ${table} values ('inner')`);
          throw new Error("inner failed");
        });
      }),
    ).rejects.toThrow("inner failed");
    expect(await ids()).toEqual(["kept"]);
  });

  it("runs afterCommit's work once the outermost transaction has committed, and never for one rolled back", async () => {
    const db = await getDb();
    const seen: string[] = [];
    await inTransaction(db, async (tx) => {
      await tx.execute(sql`insert into ${table} values ('signalled')`);
      // As a service called with the caller's transaction does.
      await inTransaction(tx, async (inner) => {
        afterCommit(inner, () => seen.push("after commit"));
      });
      seen.push("inside");
    });
    expect(seen).toEqual(["inside", "after commit"]);
    await expect(
      inTransaction(db, async (tx) => {
        afterCommit(tx, () => seen.push("rolled back"));
        throw new Error("boom");
      }),
    ).rejects.toThrow("boom");
    expect(seen).toHaveLength(2);
    // Outside any transaction: at once.
    afterCommit(db, () => seen.push("now"));
    expect(seen).toHaveLength(3);
  });
});
