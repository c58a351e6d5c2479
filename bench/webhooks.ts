/**
 * The webhooks benchmark: a receiver in this process, an endpoint of the `bench-webhooks` merchant
 * pointing at it, and two measurements.
 *
 * - Lag: payments succeeded at a fixed rate by the transition verb in this process (a second
 *   instance, as far as the server can tell); lag is receipt time − the event's created_at (stamped
 *   inside the transaction, so it slightly overstates the lag from commit).
 * - Peak: a burst of events committed at once in SQL (the relay and delivery path is what is
 *   measured); deliveries/s from the first receipt to the last, against a bare keep-alive client
 *   posting the same bodies to the same receiver with the same concurrency.
 */
import { fork } from "node:child_process";
import http from "node:http";
import path from "node:path";
import type { Sql } from "postgres";
import { encodeTimeSql } from "./dataset";
import { drizzle } from "drizzle-orm/postgres-js";
import postgres from "postgres";
import type { Db } from "@/db/client";
import * as schema from "@/db/schema";
import { systemClock } from "@/server/clock";
import { transitionPayment } from "@/server/services/payments/transition-payment";

/** The bare client gets the runner's own cap on requests in flight. */
export { DELIVERY_PER_ENDPOINT } from "@/server/jobs/local-runner";

export type Receiver = {
  url: string;
  /** Receipt time (epoch ms) by event id, as of the last `refresh()`; the first receipt wins. */
  received: Map<string, number>;
  refresh(): Promise<void>;
  close(): Promise<void>;
};

/** Starts bench/receiver.mjs in its own process. */
export async function startReceiver(): Promise<Receiver> {
  const child = fork(path.join(import.meta.dirname, "receiver.mjs"), [], { stdio: ["ignore", "inherit", "inherit", "ipc"] });
  const port = await new Promise<number>((resolve, reject) => {
    child.once("message", (m: { type: string; port: number }) => resolve(m.port));
    child.once("error", reject);
  });
  const received = new Map<string, number>();
  return {
    url: `http://127.0.0.1:${port}/webhooks`,
    received,
    refresh: () =>
      new Promise<void>((resolve) => {
        child.once("message", (m: { received: [string, number][] }) => {
          for (const [id, at] of m.received) received.set(id, at);
          resolve();
        });
        child.send({ type: "dump" });
      }),
    close: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once("exit", () => resolve());
        child.send({ type: "close" });
      }),
  };
}

/** `count` payments awaiting their customers for an hour, for the test helper to succeed. */
export async function seedAwaiting(sql: Sql, merchantId: string, count: number): Promise<string[]> {
  await sql`delete from webhook_attempts where delivery_id in (select id from webhook_deliveries where merchant_id = ${merchantId})`;
  await sql`delete from webhook_deliveries where merchant_id = ${merchantId}`;
  await sql`delete from events where merchant_id = ${merchantId}`;
  await sql`delete from webhook_endpoints where merchant_id = ${merchantId}`;
  await sql`delete from payments where merchant_id = ${merchantId}`;
  const nowMs = Date.now();
  const rows = await sql.unsafe<{ id: string }[]>(
    `insert into payments (
       id, merchant_id, livemode, amount, currency, method, reference, customer_msisdn, network,
       fee, fee_bearer, charged_amount, status, provider, provider_reference, metadata,
       prompt_sent_at, expires_at, created_at, updated_at)
     select
       'pay_' || ${encodeTimeSql(`${nowMs}::bigint`)} || substr(md5(random()::text || g.i::text), 1, 16),
       $1, false, 1000, 'USD', 'wallet', 'hook-' || g.i || '-' || ${nowMs}, '263770000003', 'ecocash',
       15, 'merchant', 1000, 'awaiting_customer', 'sandbox', null, '{"order":"bench"}'::jsonb,
       to_timestamp(${nowMs} / 1000.0), to_timestamp(${nowMs + 3_600_000} / 1000.0),
       to_timestamp(${nowMs} / 1000.0), to_timestamp(${nowMs} / 1000.0)
     from generate_series(0, ${count - 1}) as g(i)
     returning id`,
    [merchantId],
  );
  return rows.map((r) => r.id);
}

/**
 * Succeeds each payment at `rate` per second, open loop, through the service's own transition verb
 * on this process's connection: the CAS, the event and its outbox row commit here, as they would on
 * another instance, and the server under test learns of them only through the database (LISTEN).
 */
export async function driveTransitions(databaseUrl: string, paymentIds: string[], rate: number): Promise<{ failed: number }> {
  const client = postgres(databaseUrl, { max: 10, onnotice: () => {} });
  const db = drizzle(client, { schema }) as unknown as Db;
  let failed = 0;
  const pending: Promise<void>[] = [];
  const start = performance.now();
  for (const [i, paymentId] of paymentIds.entries()) {
    const wait = start + (i * 1000) / rate - performance.now();
    if (wait > 0.5) await new Promise((r) => setTimeout(r, wait));
    pending.push(
      transitionPayment({ db, clock: systemClock }, { paymentId, to: "succeeded" }).then(
        (r) => void (r.changed || failed++),
        () => void failed++,
      ),
    );
  }
  await Promise.all(pending);
  await client.end();
  return { failed };
}

export type Lag = { received: number; expected: number; p50: number; p99: number; max: number };

/** Lag of each of the merchant's events: receipt − created_at. */
export async function eventLag(sql: Sql, merchantId: string, receiver: Receiver): Promise<Lag> {
  const rows = await sql<{ id: string; at: Date }[]>`select id, created_at as at from events where merchant_id = ${merchantId}`;
  const lags = rows
    .map((r) => (receiver.received.has(r.id) ? receiver.received.get(r.id)! - r.at.getTime() : Number.NaN))
    .filter((n) => !Number.isNaN(n))
    .sort((a, b) => a - b);
  const pct = (p: number) => (lags.length ? lags[Math.min(lags.length - 1, Math.ceil((p / 100) * lags.length) - 1)]! : Number.NaN);
  return { received: lags.length, expected: rows.length, p50: pct(50), p99: pct(99), max: lags.at(-1) ?? Number.NaN };
}

/**
 * Commits one event per payment at once (events + outbox rows, as recordEvent writes them) and
 * returns each event's id and the body a delivery of it carries, for the bare client.
 */
export async function commitBurst(sql: Sql, merchantId: string, paymentIds: string[]): Promise<{ id: string; body: string }[]> {
  const nowMs = Date.now();
  const rows = await sql.begin(async (tx) => {
    const inserted = await tx.unsafe<{ id: string; type: string; data: unknown; created_at: Date; livemode: boolean }[]>(
      `insert into events (id, merchant_id, livemode, type, data, object_id, created_at)
       select 'evt_' || ${encodeTimeSql(`${nowMs}::bigint`)} || substr(md5(random()::text || p.id), 1, 16), $1, false, 'payment.succeeded',
              json_build_object('object', json_build_object('id', p.id, 'object', 'payment', 'status', 'succeeded', 'metadata', json_build_object('order', 'bench'))),
              p.id, to_timestamp(${nowMs} / 1000.0)
       from unnest($2::text[]) as p(id)
       returning id, type, data, created_at, livemode`,
      [merchantId, paymentIds],
    );
    await tx.unsafe(
      `insert into outbox (id, topic, payload, created_at)
       select 'obx_' || substr(e.id, 5), 'event/created',
              jsonb_build_object('event_id', e.id, 'type', 'payment.succeeded', 'merchant_id', $1::text, 'livemode', false), to_timestamp(${nowMs} / 1000.0)
       from unnest($2::text[]) as e(id)`,
      [merchantId, inserted.map((r) => r.id)],
    );
    return inserted;
  });
  return rows.map((e) => ({
    id: e.id,
    body: JSON.stringify({ id: e.id, object: "event", type: e.type, created_at: e.created_at.toISOString(), livemode: e.livemode, data: e.data }),
  }));
}

/** Receipts per second from the first receipt of `ids` to the last. */
export function deliveriesPerSecond(receiver: Receiver, ids: string[]): number {
  const times = ids.map((id) => receiver.received.get(id)).filter((t): t is number => t !== undefined).sort((a, b) => a - b);
  if (times.length < 2) return Number.NaN;
  return (times.length - 1) / ((times.at(-1)! - times[0]!) / 1000);
}

/** A bare keep-alive client: the same bodies, the same receiver, `concurrency` requests in flight. */
export async function bareClient(url: string, bodies: string[], concurrency: number): Promise<number> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: concurrency });
  const target = new URL(url);
  let next = 0;
  const started = performance.now();
  const worker = async () => {
    while (next < bodies.length) {
      const body = bodies[next++]!;
      await new Promise<void>((resolve, reject) => {
        const req = http.request(
          {
            agent,
            host: target.hostname,
            port: target.port,
            path: target.pathname,
            method: "POST",
            headers: { "content-type": "application/json", "content-length": Buffer.byteLength(body), "service-signature": "t=0,v1=0" },
          },
          (res) => {
            res.resume();
            res.on("end", resolve);
          },
        );
        req.on("error", reject);
        req.end(body);
      });
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  const seconds = (performance.now() - started) / 1000;
  agent.destroy();
  return bodies.length / seconds;
}

/** Waits until `done()` or `timeoutMs`. */
export async function waitFor(done: () => boolean | Promise<boolean>, timeoutMs: number): Promise<boolean> {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    if (await done()) return true;
    await new Promise((r) => setTimeout(r, 100));
  }
  return done();
}
