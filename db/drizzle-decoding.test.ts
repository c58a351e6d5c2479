import { readFileSync } from "node:fs";
import path from "node:path";
import * as drizzle from "drizzle-orm";
import { fillPlaceholders, getTableColumns, Param, sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { payments } from "@/db/schema";

// drizzle's mapResultRow worked out each selected field's decoder (up to three is() entity
// checks, each a prototype walk) for every row, and fillPlaceholders each parameter's kind on
// every execution. patches/drizzle-orm+0.45.4.patch (applied by `npm install` through
// patch-package) works both out once per query, keyed on the query's own arrays.
const COPIES = ["utils.js", "utils.cjs", "sql/sql.js", "sql/sql.cjs"].map((f) => path.resolve("node_modules/drizzle-orm", f));

type Field = { path: string[]; field: unknown };
/** Exported by the package at run time; its declarations leave it out (internal). */
const { mapResultRow } = drizzle as unknown as {
  mapResultRow(columns: Field[], row: unknown[], joinsNotNullableMap: Record<string, boolean> | undefined): Record<string, unknown>;
};

describe("drizzle's row decoding (patched)", () => {
  it("is patched in both builds of the package", () => {
    for (const file of COPIES) expect(readFileSync(file, "utf8"), file).toMatch(/const (rowPlans|paramPlans) = /);
  });

  it("reads a selection's fields once, however many rows it decodes", () => {
    const columns = getTableColumns(payments);
    let reads = 0;
    const fields: Field[] = (["id", "amount", "createdAt"] as const).map((key) => ({
      path: [key],
      get field() {
        reads++;
        return columns[key];
      },
    }));
    const rows = [
      ["pay_a", 100, "2026-11-26 10:00:00+00"],
      ["pay_b", 200, "2026-11-26 10:00:01+00"],
      ["pay_c", 300, null],
    ];
    const decoded = rows.map((row) => mapResultRow(fields, row, undefined));
    expect(reads).toBe(3);
    expect(decoded[0]).toEqual({ id: "pay_a", amount: 100, createdAt: new Date("2026-11-26T10:00:00Z") });
    expect(decoded[2]).toEqual({ id: "pay_c", amount: 300, createdAt: null });
  });

  it("still nulls the missing side of a left join", () => {
    const columns = getTableColumns(payments);
    const fields: Field[] = [
      { path: ["claim", "inserted"], field: sql<boolean>`true` },
      { path: ["pay", "id"], field: columns.id },
      { path: ["pay", "amount"], field: columns.amount },
    ];
    expect(mapResultRow(fields, [true, null, null], { claim: true, payments: false })).toEqual({ claim: { inserted: true }, pay: null });
    expect(mapResultRow(fields, [true, "pay_a", 5], { claim: true, payments: false })).toEqual({ claim: { inserted: true }, pay: { id: "pay_a", amount: 5 } });
  });

  it("fills placeholders, encoded ones through their column, on every execution of one parameter list", () => {
    const params = [sql.placeholder("a"), new Param(sql.placeholder("at"), getTableColumns(payments).createdAt), "literal"];
    const at = new Date("2026-11-26T10:00:00Z");
    expect(fillPlaceholders(params, { a: 1, at })).toEqual([1, at.toISOString(), "literal"]);
    expect(fillPlaceholders(params, { a: 2, at })).toEqual([2, at.toISOString(), "literal"]);
    expect(() => fillPlaceholders(params, { at })).toThrow('No value for placeholder "a" was provided');
  });
});
