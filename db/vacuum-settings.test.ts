import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { getDb } from "./client";
import { rowsOf } from "./rows";

/** The per-table autovacuum settings of the queue-like tables (migration 0010) and of payments (0012). */
describe("per-table vacuum and analyze settings", () => {
  const options = async (table: string) => {
    const db = await getDb();
    const [row] = rowsOf<{ reloptions: string[] | null }>(await db.execute(sql`select reloptions from pg_class where oid = ${table}::regclass`));
    return row?.reloptions ?? [];
  };

  it("vacuums the outbox every 1,000 dead rows, whatever its size", async () => {
    expect(await options("outbox")).toEqual(expect.arrayContaining(["autovacuum_vacuum_scale_factor=0", "autovacuum_vacuum_threshold=1000"]));
  });

  it("vacuums and analyzes webhook deliveries at 2 % of their rows", async () => {
    expect(await options("webhook_deliveries")).toEqual(
      expect.arrayContaining(["autovacuum_vacuum_scale_factor=0.02", "autovacuum_analyze_scale_factor=0.02"]),
    );
  });

  it("analyzes payments after 1 % of their rows plus 1,000, so that a new merchant is soon in the statistics", async () => {
    expect(await options("payments")).toEqual(expect.arrayContaining(["autovacuum_analyze_scale_factor=0.01", "autovacuum_analyze_threshold=1000"]));
  });
});
