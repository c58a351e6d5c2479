import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { openPostgres, planPerValue } from "@/db/client";
import { rowsOf } from "@/db/rows";
import { systemClock } from "@/server/clock";
import { env } from "@/server/env";
import { setEnv } from "@/server/testing/env";
import { loadDeliveries } from "./attempt-delivery";

// Prepared statements and their plans exist only on PostgreSQL (CI sets DATABASE_URL).
describe.runIf(env().DATABASE_URL)("loadDeliveries on PostgreSQL", () => {
  it("is planned for each run's ids, never from a generic plan made while the table was small", async () => {
    // One connection per pool, so that the catalogue read below is the per-value pool's own.
    const restore = setEnv({ DATABASE_POOL_MAX: "1" });
    const handle = await openPostgres(env().DATABASE_URL!);
    try {
      const runs = 7; // past the 5 runs after which PostgreSQL may settle on a generic plan
      for (let i = 0; i < runs; i++) await loadDeliveries({ db: handle.db, clock: systemClock }, [`whd_none_${i}`, `whd_none_${i}b`]);
      const statements = rowsOf<{ statement: string; generic_plans: number; custom_plans: number }>(
        await handle.db.execute(sql`select statement, generic_plans, custom_plans from pg_prepared_statements where ${planPerValue(sql`true`)}`),
      );
      const load = statements.find((s) => s.statement.includes('"webhook_deliveries"."attempt_count"'));
      expect(load, statements.map((s) => s.statement).join("\n")).toBeDefined();
      expect({ generic: Number(load!.generic_plans), custom: Number(load!.custom_plans) }).toEqual({ generic: 0, custom: runs });
    } finally {
      await handle.close();
      restore();
    }
  });
});
