import { eq, sql } from "drizzle-orm";
import { drizzle } from "drizzle-orm/postgres-js";
import { describe, expect, it } from "vitest";
import { env } from "@/server/env";
import { setEnv } from "@/server/testing/env";
import { rowsOf } from "./rows";
import { merchants } from "./schema";
import { openPostgres, planPerValue, PREPARE_MAX_PARAMETERS, preparing } from "./client";

type Call = { method: string; args: unknown[] };

/** A stand-in for a postgres-js client that records what it is asked to do. */
function recorder(calls: Call[]): import("postgres").Sql {
  const client = {
    unsafe: (...args: unknown[]) => calls.push({ method: "unsafe", args }),
    begin: (...args: unknown[]) => {
      calls.push({ method: "begin", args: args.slice(0, -1) });
      return (args.at(-1) as (tx: unknown) => unknown)(client);
    },
    savepoint: (...args: unknown[]) => {
      calls.push({ method: "savepoint", args: args.slice(0, -1) });
      return (args.at(-1) as (tx: unknown) => unknown)(client);
    },
    options: { parsers: {}, serializers: {} },
  };
  return client as unknown as import("postgres").Sql;
}

describe("preparing", () => {
  it("asks for a prepared statement whatever the caller passed, in transactions and savepoints too", async () => {
    const calls: Call[] = [];
    const client = preparing(recorder(calls));
    client.unsafe("select $1", [1], { prepare: false } as never);
    await client.begin("read write", async (tx) => {
      tx.unsafe("select $1", [2]);
      await (tx as unknown as { savepoint: (fn: (s: import("postgres").Sql) => unknown) => Promise<unknown> }).savepoint(async (sp) => sp.unsafe("select $1", [3]));
    });
    expect(calls).toEqual([
      { method: "unsafe", args: ["select $1", [1], { prepare: true }] },
      { method: "begin", args: ["read write"] },
      { method: "unsafe", args: ["select $1", [2], { prepare: true }] },
      { method: "savepoint", args: [] },
      { method: "unsafe", args: ["select $1", [3], { prepare: true }] },
    ]);
    // Everything else is the client's own.
    expect(client.options).toEqual({ parsers: {}, serializers: {} });
  });

  it("leaves batches unprepared: their text changes with their size", () => {
    const calls: Call[] = [];
    const client = preparing(recorder(calls));
    const many = Array.from({ length: PREPARE_MAX_PARAMETERS + 1 }, (_, i) => i);
    client.unsafe("insert …", many);
    client.unsafe("insert …", many.slice(1));
    expect(calls.map((c) => c.args[2])).toEqual([{ prepare: false }, { prepare: true }]);
  });

  it("sends a query with a planPerValue condition to the per-value pool, prepared; in a transaction, unprepared", async () => {
    const calls: Call[] = [];
    const perValueCalls: Call[] = [];
    const handle = drizzle(preparing(recorder(calls), recorder(perValueCalls)));
    const marked = sql`${merchants.name} ilike ${"%a%"}`;
    await handle.select({ id: merchants.id }).from(merchants).where(planPerValue(marked)).catch(() => {});
    await handle.select({ id: merchants.id }).from(merchants).where(marked).catch(() => {});
    await handle.transaction(async (tx) => {
      await tx.select({ id: merchants.id }).from(merchants).where(planPerValue(marked)).catch(() => {});
    }).catch(() => {});
    const prepared = (c: Call[]) => c.filter((x) => x.method === "unsafe").map((x) => (x.args[2] as { prepare: boolean }).prepare);
    expect(prepared(perValueCalls)).toEqual([true]);
    expect(prepared(calls)).toEqual([true, false]);
  });

  // The driver itself: only PostgreSQL has prepared statements to look at (CI sets DATABASE_URL).
  describe.runIf(env().DATABASE_URL)("on PostgreSQL", () => {
    it("runs drizzle's queries as named prepared statements, except those planned per value", async () => {
      // One connection, so that the catalogue read below sees the statements of the queries before it.
      const restore = setEnv({ DATABASE_POOL_MAX: "1" });
      const handle = await openPostgres(env().DATABASE_URL!);
      try {
        const lookup = () => handle.db.select({ id: merchants.id }).from(merchants).where(eq(merchants.slug, "no-such-merchant"));
        await lookup();
        await lookup();
        await handle.db.transaction(async (tx) => {
          await tx.select({ id: merchants.id }).from(merchants).where(eq(merchants.id, "no-such-id"));
        });
        const statements = rowsOf<{ statement: string; calls: number }>(
          await handle.db.execute(sql`select statement, generic_plans + custom_plans as calls from pg_prepared_statements`),
        );
        const bySlug = statements.find((s) => s.statement.includes('"slug" = $1'));
        expect(bySlug, statements.map((s) => s.statement).join("\n")).toBeDefined();
        // Prepared once on this connection, run twice.
        expect(Number(bySlug!.calls)).toBe(2);
        expect(statements.some((s) => s.statement.includes('"id" = $1'))).toBe(true);
        // The per-value pool (one connection here): prepared too, and planned for every run's values.
        const [own] = rowsOf<{ mode: string; mine: boolean }>(
          await handle.db.execute(
            sql`select current_setting('plan_cache_mode') as mode,
                  exists (select 1 from pg_prepared_statements where statement like '%plan per value%') as mine
                where ${planPerValue(sql`${"x"}::text = ${"x"}`)}`,
          ),
        );
        expect(own).toEqual({ mode: "force_custom_plan", mine: true });
        // Both pools parse and send values alike: drizzle's parsers are installed on both.
        const read = async (where: ReturnType<typeof sql>) =>
          rowsOf(await handle.db.execute(sql`select ${"2026-01-02T03:04:05.678Z"}::timestamptz as at, 12::bigint as n where ${where}`));
        const plain = await read(sql`true`);
        expect(plain).toHaveLength(1);
        expect(await read(planPerValue(sql`true`))).toEqual(plain);
      } finally {
        await handle.close();
        restore();
      }
    });
  });
});
