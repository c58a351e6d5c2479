/**
 * `npm run bench:overview`: the dashboard's overview on a merchant with 1,000,000 payments over
 * the last twelve days (the list dataset), on PostgreSQL, read by the service in this process:
 * - summed: every day over summed from the rows and stored (the first read after a day ends, and
 *   what every read cost before the stored totals);
 * - stored: later reads, which sum only today's payments;
 * - after a late change: one refund of a payment eleven days old, then a read;
 * - the triggers' cost to writes: 100,000 payments of today inserted, then their status updated,
 *   with the day triggers and without (the WHEN that leaves today's payments out is all they cost).
 * A script, not a test: it prints its figures and meets no target. DATABASE_URL, or the database
 * `mari_bench_overview` on the local server, made when missing; the dataset is kept for the next run.
 */
import { DAY_TRIGGERS, ensureDataset } from "./dataset";
import { runInProcess } from "./in-process";

const ROWS = 1_000_000;
const WARM_READS = 20;
const WRITE_ROWS = 100_000;

const say = (line: string) => console.log(`[overview] ${line}`);
const ms = (t: number) => `${t.toFixed(0)} ms`;
const pct = (sorted: number[], q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;

// A database of its own by default: a second merchant of a million payments in the bench's
// would change what its list phases measure (a search's trigram matches span both).
runInProcess("bench-overview", "mari_bench_overview", async ({ merchantId, ctx, sql }) => {
  const { getOverview } = await import("@/server/services/overview/get-overview");
  const dataset = await ensureDataset(sql, merchantId, ROWS, say);
  say(dataset.built ? `dataset built in ${dataset.seconds.toFixed(0)} s` : "dataset reused");
  const read = async () => {
    const started = performance.now();
    const o = await getOverview(ctx);
    return { ms: performance.now() - started, payments: o.days.reduce((s, d) => s + d.total, 0) };
  };

  await sql`delete from payment_day_totals where merchant_id = ${merchantId}`;
  const summed = await read();
  const warm = [];
  for (let i = 0; i < WARM_READS; i++) warm.push((await read()).ms);
  warm.sort((a, b) => a - b);
  const [today] = await sql<{ n: number }[]>`
    select count(*)::int as n from payments where merchant_id = ${merchantId} and livemode = false
      and mari_harare_day(created_at) = mari_harare_day(now())`;
  await sql`
    update payments set amount_refunded = amount_refunded + 1
    where id = (select id from payments where merchant_id = ${merchantId} and livemode = false and status = 'succeeded'
      and created_at < now() - interval '11 days' and amount_refunded < amount order by id limit 1)`;
  const late = await read();

  // The triggers' cost: the same writes with and without them, on rows of today (no mark).
  const writes = async (label: string) => {
    await sql`delete from payments where merchant_id = ${merchantId} and reference like 'OV-%'`;
    const t0 = performance.now();
    await sql`
      insert into payments (id, merchant_id, livemode, amount, currency, method, reference, customer_msisdn, network, fee,
        fee_bearer, charged_amount, status, provider, expires_at, created_at, updated_at)
      select 'pay_zz' || lpad(i::text, 24, '0'), ${merchantId}, false, 100, 'USD', 'wallet', 'OV-' || ${label} || i, '263771234567',
        'ecocash', 1, 'merchant', 100, 'awaiting_customer', 'sandbox', now() + interval '3 minutes', now(), now()
      from generate_series(1, ${WRITE_ROWS}) as i`;
    const t1 = performance.now();
    await sql`update payments set status = 'succeeded' where merchant_id = ${merchantId} and reference like 'OV-%'`;
    const t2 = performance.now();
    await sql`delete from payments where merchant_id = ${merchantId} and reference like 'OV-%'`;
    return { insert: t1 - t0, update: t2 - t1 };
  };
  const rounds: Record<"with" | "without", { insert: number; update: number }[]> = { with: [], without: [] };
  for (let round = 0; round < 3; round++) {
    rounds.with.push(await writes("w"));
    for (const t of DAY_TRIGGERS) await sql.unsafe(`alter table payments disable trigger ${t}`);
    try {
      rounds.without.push(await writes("o"));
    } finally {
      for (const t of DAY_TRIGGERS) await sql.unsafe(`alter table payments enable trigger ${t}`);
    }
  }
  const best = (k: "with" | "without", f: "insert" | "update") => Math.min(...rounds[k].map((r) => r[f]));
  const perRow = (t: number) => `${((t / WRITE_ROWS) * 1000).toFixed(1)} µs a row`;

  console.log("");
  console.log(`overview of ${summed.payments.toLocaleString("en")} payments over 14 days (${today!.n.toLocaleString("en")} of them today)`);
  console.log(`  summed from the rows, and stored   ${ms(summed.ms)}`);
  console.log(`  stored (${WARM_READS} reads)               p50 ${ms(pct(warm, 0.5))}, max ${ms(warm.at(-1)!)}`);
  console.log(`  after a late refund                ${ms(late.ms)}`);
  console.log(`${WRITE_ROWS.toLocaleString("en")} payments of today, best of 3 (one statement each)`);
  console.log(`  insert   with the triggers ${ms(best("with", "insert"))} (${perRow(best("with", "insert"))}), without ${ms(best("without", "insert"))} (${perRow(best("without", "insert"))})`);
  console.log(`  update   with the triggers ${ms(best("with", "update"))} (${perRow(best("with", "update"))}), without ${ms(best("without", "update"))} (${perRow(best("without", "update"))})`);
});
