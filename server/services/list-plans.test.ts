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
import { listDeliveries, type DeliveryFilters } from "./webhooks/list-deliveries";

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

const DELIVERY_COLUMNS = "id, merchant_id, livemode, event_id, endpoint_id, status, reason, created_at";

/**
 * Rows of webhook_deliveries a page of `filters` fetched, in a scratch copy holding `rows`
 * deliveries of one merchant (numbered `i`, oldest first; `status` and `endpoint` are SQL of `i`)
 * and their events, analysed as autovacuum would have. `generic`: planned as a prepared statement
 * is once PostgreSQL settles on a plan made without the values (a query planned per value never is).
 */
async function deliveryPageReads(rows: number, status: string, endpoint: string, filters: DeliveryFilters, generic: boolean) {
  const restore = setEnv({ DATABASE_POOL_MAX: "1" });
  const handle = await openPostgres(env().DATABASE_URL!);
  try {
    return await inRolledBackTransaction(handle.db, async (tx) => {
      const run = async (q: string) => tx.execute(sql.raw(q));
      await scratchCopy(tx, "plan_probe", "webhook_deliveries", "events");
      await run(`insert into events (id, merchant_id, livemode, type, data, object_id, created_at)
        select 'evt_' || lpad(i::text, 26, '0'), 'mer_hooks', false, 'payment.succeeded', '{}', 'pay_' || i, now() from generate_series(1, ${rows}) as i`);
      await run(`insert into webhook_deliveries (${DELIVERY_COLUMNS})
        select 'whd_' || lpad(i::text, 26, '0'), 'mer_hooks', false, 'evt_' || lpad(i::text, 26, '0'), ${endpoint}, ${status}, 'event', now() from generate_series(1, ${rows}) as i`);
      await run(`analyze webhook_deliveries`);
      await run(`analyze events`);
      // As a prepared statement runs once PostgreSQL has settled on its generic plan, made without the values.
      if (generic) await run(`set local plan_cache_mode = force_generic_plan`);
      const ctx = { db: tx, clock: systemClock, merchant: { id: "mer_hooks" }, livemode: false } as unknown as ServiceContext;
      const before = await rowsFetched(tx, "webhook_deliveries");
      const page = await listDeliveries(ctx, filters, { limit: PAGE });
      return { reads: (await rowsFetched(tx, "webhook_deliveries")) - before, ids: page.data.map((d) => d.id) };
    });
  } finally {
    await handle.close();
    restore();
  }
}

const DELIVERIES = 20_000;
const FEW = 200;
const deliveryId = (i: number) => `whd_${String(i).padStart(26, "0")}`;
/**
 * A page, and the two rows the planner reads at the ends of the event index to cost the join with
 * events (rows this transaction inserted are not yet visible to all, so it reads them in the table).
 */
const PAGE_READS = PAGE + 1 + 2;
/** The newest page of the first FEW deliveries, newest first. */
const newestOfFew = Array.from({ length: PAGE }, (_, k) => deliveryId(FEW - k));

describe.runIf(env().DATABASE_URL)("a page of webhook deliveries narrowed to a few old ones", () => {
  it("failed ones are read from their own index, not by walking every delivery of the merchant", async () => {
    const { reads, ids } = await deliveryPageReads(DELIVERIES, `case when i <= ${FEW} then 'failed' else 'delivered' end`, "'we_main'", { status: "failed" }, true);
    expect(ids).toEqual(newestOfFew);
    expect(reads).toBeLessThanOrEqual(PAGE_READS);
  });

  it("one endpoint's are read from the endpoint's index in page order, not all read and sorted", async () => {
    const { reads, ids } = await deliveryPageReads(DELIVERIES, "'delivered'", `case when i <= ${FEW} then 'we_old' else 'we_main' end`, { endpointId: "we_old" }, false);
    expect(ids).toEqual(newestOfFew);
    expect(reads).toBeLessThanOrEqual(PAGE_READS);
  });
});

const MOST = 20_000;
const NEWER = 500;

describe.runIf(env().DATABASE_URL)("a reference search of a merchant with most of the payments, all older than others'", () => {
  it("samples the merchant's newest references from the list index, not by walking the primary key through the others'", async () => {
    const restore = setEnv({ DATABASE_POOL_MAX: "1" });
    const handle = await openPostgres(env().DATABASE_URL!);
    // The sampled start is kept per merchant for minutes: a merchant of its own each run.
    const merchant = `mer_most_${Date.now()}`;
    try {
      const reads = await inRolledBackTransaction(handle.db, async (tx) => {
        const run = async (q: string) => tx.execute(sql.raw(q));
        await scratchCopy(tx, "plan_probe", "payments");
        await run(`insert into payments (id, merchant_id, livemode, amount, currency, method, reference, customer_msisdn, network, fee, fee_bearer, charged_amount, status, provider, expires_at, created_at, updated_at)
          select 'pay_' || lpad(i::text, 26, '0'), case when i <= ${MOST} then '${merchant}' else 'mer_newer' end, false, 100, 'USD', 'wallet', 'r' || i, '263771234567', 'econet', 0, 'merchant', 100, 'succeeded', 'sandbox', now(), now(), now()
          from generate_series(1, ${MOST + NEWER}) as i`);
        await run(`analyze payments`);
        const ctx = { db: tx, clock: systemClock, merchant: { id: merchant }, livemode: false } as unknown as ServiceContext;
        const before = await rowsFetched(tx, "payments");
        // A search no reference matches: the trigram index finds no candidate, so what is read is the sample.
        expect((await listPayments(ctx, { search: "zzz" }, { limit: PAGE })).data).toEqual([]);
        return (await rowsFetched(tx, "payments")) - before;
      });
      // The 50 newest references it samples, not the NEWER payments of the other merchant before them too.
      expect(reads).toBeLessThanOrEqual(50);
    } finally {
      await handle.close();
      restore();
    }
  });
});
