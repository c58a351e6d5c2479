import { sql } from "drizzle-orm";
import { getDb } from "@/db/client";

/**
 * The framework floor for `npm run bench`: the cheapest request that still reaches the database.
 * One INSERT, one round trip, on the same pool the API uses. `bench/run.ts` creates the table.
 */
export const FLOOR_TABLE_DDL =
  "CREATE TABLE IF NOT EXISTS bench_floor (id bigserial PRIMARY KEY, at timestamptz NOT NULL DEFAULT now(), payload text)";

export async function insertFloorRow(payload: string): Promise<void> {
  const db = await getDb();
  await db.execute(sql`insert into bench_floor (payload) values (${payload})`);
}

/**
 * The read floor: what a GET costs when it does the list query's work and nothing else (no
 * auth, no validation, rows sent as the driver returns them). One indexed SELECT of 11 rows.
 */
export async function readFloorRows(merchantId: string): Promise<string> {
  const db = await getDb();
  const rows = await db.execute(
    sql`select * from payments where merchant_id = ${merchantId} and livemode = false
        order by merchant_id desc, livemode desc, id desc limit 11`,
  );
  return JSON.stringify(rows);
}
