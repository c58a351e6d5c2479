import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { openPostgres, type Db } from "@/db/client";
import { rowsOf } from "@/db/rows";
import { systemClock } from "@/server/clock";
import type { ServiceContext } from "@/server/context";
import { env } from "@/server/env";
import { setEnv } from "@/server/testing/env";
import { inRolledBackTransaction, scratchCopy } from "@/server/testing/rolled-back";
import { listCheckoutSessions } from "./checkout-sessions/list-checkout-sessions";
import { listEvents } from "./events/list-events";
import { listPayments } from "./payments/list-payments";

const PAGE = 20;
const SEEN = 4_000;
const UNSEEN = 2_000;

/**
 * A merchant that grew after the table was last analysed is one row to the planner. An index led
 * by (merchant_id, livemode) but shallower than the list index (a reference key is shorter than an
 * id) then looks as cheap as the list index, plus a sort of "one row": a plan that reads and sorts
 * every payment of the merchant for each page, ever slower as it grows. Here, in a scratch copy of
 * the table with the same indexes, long ids make the list index deeper than the reference key with
 * a few thousand rows, as a million do with real ids.
 */
async function pageReads(table: "payments" | "checkout_sessions" | "events", columns: string, values: string, list: (ctx: ServiceContext) => Promise<unknown>) {
  const restore = setEnv({ DATABASE_POOL_MAX: "1" });
  const handle = await openPostgres(env().DATABASE_URL!);
  try {
    return await inRolledBackTransaction(handle.db, async (tx) => {
      const run = async (q: string) => tx.execute(sql.raw(q));
      await scratchCopy(tx, "plan_probe", table);
      await run(`set local plan_cache_mode = force_custom_plan`);
      const insert = (merchant: string, from: number, to: number) =>
        run(`insert into ${table} (${columns}) select ${values.replaceAll("$merchant", `'${merchant}'`)} from generate_series(${from}, ${to}) as i`);
      await insert("mer_seen", 1, SEEN);
      await run(`analyze ${table}`);
      await insert("mer_unseen", SEEN + 1, SEEN + UNSEEN);
      const ctx = { db: tx, clock: systemClock, merchant: { id: "mer_unseen" }, livemode: false } as unknown as ServiceContext;
      const before = await rowsFetched(tx, table);
      await list(ctx);
      return (await rowsFetched(tx, table)) - before;
    });
  } finally {
    await handle.close();
    restore();
  }
}

/** Rows this transaction has fetched from the table through its indexes. */
async function rowsFetched(tx: Db, table: string): Promise<number> {
  const [row] = rowsOf<{ n: number | string }>(await tx.execute(sql`select idx_tup_fetch as n from pg_stat_xact_user_tables where schemaname = 'plan_probe' and relname = ${table}`));
  return Number(row?.n ?? 0);
}

// Plans and their statistics exist only on PostgreSQL (CI sets DATABASE_URL).
describe.runIf(env().DATABASE_URL)("lists for a merchant the statistics have not seen yet", () => {
  it("a page of payments reads its page from the list index, not every payment of the merchant", async () => {
    const reads = await pageReads(
      "payments",
      "id, merchant_id, livemode, amount, currency, method, reference, customer_msisdn, network, fee, fee_bearer, charged_amount, status, provider, expires_at, created_at, updated_at",
      `'pay_' || lpad(i::text, 200, '0'), $merchant, false, 100, 'USD', 'wallet', 'r' || i, '263771234567', 'econet', 0, 'merchant', 100, 'succeeded', 'sandbox', now(), now(), now()`,
      (ctx) => listPayments(ctx, {}, { limit: PAGE }),
    );
    expect(reads).toBeLessThanOrEqual(PAGE + 1);
  });

  it("a page of checkout sessions does too", async () => {
    const reads = await pageReads(
      "checkout_sessions",
      "id, merchant_id, livemode, amount, currency, reference, success_url, expires_at, created_at, updated_at",
      `'cs_' || lpad(i::text, 200, '0'), $merchant, false, 100, 'USD', 'r' || i, 'https://shop.example/done', now(), now(), now()`,
      (ctx) => listCheckoutSessions(ctx, { limit: PAGE }),
    );
    expect(reads).toBeLessThanOrEqual(PAGE + 1);
  });

  it("a page of events does too (its other index led by the merchant, by type, is deeper than the list index)", async () => {
    const reads = await pageReads(
      "events",
      "id, merchant_id, livemode, type, data, object_id, created_at",
      `'evt_' || lpad(i::text, 200, '0'), $merchant, false, 'payment.succeeded', '{}', 'pay_' || i, now()`,
      (ctx) => listEvents(ctx, {}, { limit: PAGE }),
    );
    expect(reads).toBeLessThanOrEqual(PAGE + 1);
  });
});
