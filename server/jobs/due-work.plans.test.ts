import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { openPostgres, type Db } from "@/db/client";
import { rowsOf } from "@/db/rows";
import { env } from "@/server/env";
import { setEnv } from "@/server/testing/env";
import { inRolledBackTransaction } from "@/server/testing/rolled-back";
import { nextDueAt } from "./due-work";

const SEEN = 2_000;
const UNSEEN = 5_000;
/** The tables nextDueAt reads, copied with their partial indexes into a schema of their own. */
const TABLES = ["payments", "refunds", "outbox", "settlements", "webhook_deliveries"];

/** Index entries this transaction has read from the copy of `table`, over all its indexes. */
async function entriesRead(tx: Db, table: string): Promise<number> {
  const [row] = rowsOf<{ n: number | string | null }>(
    await tx.execute(sql`select sum(pg_stat_get_xact_tuples_returned(indexrelid)) as n from pg_index where indrelid = ${`plan_probe.${table}`}::regclass`),
  );
  return Number(row?.n ?? 0);
}

// Plans and their statistics exist only on PostgreSQL (CI sets DATABASE_URL).
describe.runIf(env().DATABASE_URL)("nextDueAt after the due rows grew past the last ANALYZE", () => {
  it("reads the earliest entry of the expiry index, not every payment waiting for its customer", async () => {
    const restore = setEnv({ DATABASE_POOL_MAX: "1" });
    const handle = await openPostgres(env().DATABASE_URL!);
    try {
      const { reads, expiry, earliest } = await inRolledBackTransaction(handle.db, async (tx) => {
        const run = async (q: string) => tx.execute(sql.raw(q));
        await run(`create schema plan_probe`);
        for (const t of TABLES) await run(`create table plan_probe.${t} (like public.${t} including defaults including constraints including indexes)`);
        await run(`set local search_path = plan_probe, public`);
        const insert = (from: number, to: number, status: string, dueAt: string) =>
          run(
            `insert into payments (id, merchant_id, livemode, amount, currency, method, reference, customer_msisdn, network, fee, fee_bearer, charged_amount, status, provider, expires_at, created_at, updated_at)
             select 'pay_' || lpad(i::text, 26, '0'), 'mer_probe', false, 100, 'USD', 'wallet', 'r' || i, '263771234567', 'econet', 0, 'merchant', 100,
               '${status}', 'sandbox', ${dueAt}, now(), now() from generate_series(${from}, ${to}) as i`,
          );
        // Analysed while no payment waits for its customer: to the planner the expiry index is empty.
        await insert(1, SEEN, "succeeded", "now() - interval '1 hour'");
        await run(`analyze payments`);
        // Then thousands pile up, as a busy merchant's creates do between two ANALYZEs.
        await insert(SEEN + 1, SEEN + UNSEEN, "awaiting_customer", "now() + i * interval '1 second'");
        const [first] = rowsOf<{ at: string }>(await tx.execute(sql`select min(expires_at) as at from payments where status = 'awaiting_customer'`));
        const before = await entriesRead(tx, "payments");
        const due = await nextDueAt(tx, new Date());
        return { reads: (await entriesRead(tx, "payments")) - before, expiry: due.kinds.expiry, earliest: new Date(first!.at) };
      });
      expect(expiry).toEqual(earliest);
      // One entry for the expiry, none for the reconcile index (empty); not 5,000.
      expect(reads).toBeLessThanOrEqual(2);
    } finally {
      await handle.close();
      restore();
    }
  });
});
