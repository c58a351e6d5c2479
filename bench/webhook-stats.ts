/**
 * `npm run bench:webhook-stats`: the dashboard's webhook endpoint stats (attempts, failures, the
 * last attempt and the last failure over 24 h) for a merchant with two busy endpoints, each taking
 * an attempt a second (86,400 a day, two days of them kept), one in twenty of the first one's
 * failing and none of the second's, beside a quiet one. Read by the service in this process, on
 * PostgreSQL, 20 times; prints p50 and max.
 * A script, not a test: it meets no target. DATABASE_URL, or the database `mari_bench_webhook_stats`
 * on the local server, made when missing; the dataset is kept for the next run.
 */
import { encodeTimeSql } from "./dataset";
import { runInProcess } from "./in-process";

const PER_DAY = 86_400;
const DAYS = 2;
const READS = 20;

const say = (line: string) => console.log(`[webhook-stats] ${line}`);
const ms = (t: number) => `${t.toFixed(1)} ms`;

runInProcess("bench-webhook-stats", "mari_bench_webhook_stats", async ({ merchantId, ctx, sql }) => {
  const { endpointAttemptStats } = await import("@/server/services/webhooks/endpoint-attempt-stats");
  const endpoints = [1, 2, 3].map((i) => `we_benchstats${i}`);
  const [have] = await sql<{ n: number }[]>`select count(*)::int as n from webhook_attempts where endpoint_id in ${sql(endpoints)}`;
  if (have!.n !== 2 * PER_DAY * DAYS) {
    const started = performance.now();
    // Ids as the service makes them: the time in their first ten characters, half a second apart
    // (turn about to each busy endpoint), ending now.
    const at = (i: string) => `(${Date.now()}::bigint - ${i} * 500)`;
    await sql.begin(async (tx) => {
      await tx`delete from webhook_attempts where endpoint_id in ${tx(endpoints)}`;
      await tx`delete from webhook_deliveries where endpoint_id in ${tx(endpoints)}`;
      await tx`delete from events where merchant_id = ${merchantId}`;
      await tx`delete from webhook_endpoints where id in ${tx(endpoints)}`;
      await tx`
        insert into webhook_endpoints (id, merchant_id, livemode, url, enabled_events, secret, created_at, updated_at)
        select e, ${merchantId}, false, 'https://example.test/' || e, '{*}', 'unused', now(), now() from unnest(${endpoints}::text[]) e`;
      await tx.unsafe(`
        insert into events (id, merchant_id, livemode, type, data, object_id, created_at)
        select 'evt_' || ${encodeTimeSql(at("i"))} || substr(md5(i::text), 1, 16), '${merchantId}', false, 'payment.succeeded', '{}',
          'pay_' || i, to_timestamp(${at("i")} / 1000.0)
        from generate_series(1, ${2 * PER_DAY * DAYS}) i`);
      await tx.unsafe(`
        insert into webhook_deliveries (id, merchant_id, livemode, event_id, endpoint_id, status, reason, attempt_count, first_attempt_at, last_attempt_at, created_at)
        select 'whd_' || substr(id, 5), merchant_id, false, id, case when substr(object_id, 5)::int % 2 = 0 then '${endpoints[0]}' else '${endpoints[1]}' end,
          'delivered', 'event', 1, created_at, created_at, created_at
        from events where merchant_id = '${merchantId}'`);
      await tx.unsafe(`
        insert into webhook_attempts (id, delivery_id, endpoint_id, attempted_at, status_code, latency_ms, error, response_body)
        select 'wha_' || substr(id, 5), id, endpoint_id, first_attempt_at,
          case when endpoint_id = '${endpoints[0]}' and random() < 0.05 then 500 else 200 end, 20, null, 'ok'
        from webhook_deliveries where endpoint_id in ('${endpoints[0]}', '${endpoints[1]}')`);
    });
    await sql`vacuum analyze webhook_endpoints, events, webhook_deliveries, webhook_attempts`;
    say(`dataset built in ${((performance.now() - started) / 1000).toFixed(0)} s`);
  } else {
    say("dataset reused");
  }

  const times: number[] = [];
  let stats;
  for (let i = 0; i < READS; i++) {
    const started = performance.now();
    stats = await endpointAttemptStats(ctx, endpoints);
    times.push(performance.now() - started);
  }
  times.sort((x, y) => x - y);
  const [flaky, fine] = endpoints.map((id) => stats!.get(id)!);
  const n = (k: number) => k.toLocaleString("en");
  console.log("");
  console.log(`stats of 3 endpoints over the last 24 h: ${n(flaky!.attempts)} attempts (${n(flaky!.failures)} failed), ${n(fine!.attempts)} (${n(fine!.failures)} failed) and none`);
  console.log(`  ${READS} reads   p50 ${ms(times[Math.floor(READS / 2)]!)}, max ${ms(times.at(-1)!)}`);
});
