/**
 * Clients that create payments the way the API asks them to: each with its own Idempotency-Key,
 * repeating the very same request after any network error, timeout, 5xx, 409 request_in_progress
 * or 429, with backoff, until a final answer (a 2xx, or a 4xx other than those).
 */
import type { Rng } from "./random";

export type Order = { key: string; msisdn: string; amount: number };

export type KeyResult = {
  key: string;
  msisdn: string;
  /** The final HTTP status; null if the client gave up (deadline) without one. */
  status: number | null;
  code: string | null;
  paymentId: string | null;
  paymentStatus: string | null;
  attempts: number;
  replayed: boolean;
};

export type ClientStats = { requests: number; retries: number; why: Record<string, number> };

export type ClientOptions = {
  url: string;
  apiKey: string;
  orders: Order[];
  concurrency: number;
  /** The creates start no faster than this many per second, so that the chaos meets all of them. */
  perSecond: number;
  timeoutMs: number;
  /** A key still without a final answer after this long is given up (and reported). */
  keyDeadlineMs: number;
  rng: Rng;
};

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function runClients(o: ClientOptions): Promise<{ results: KeyResult[]; stats: ClientStats }> {
  const stats: ClientStats = { requests: 0, retries: 0, why: {} };
  const results: KeyResult[] = new Array(o.orders.length);
  const start = Date.now();
  let next = 0;
  const retryBecause = (why: string) => {
    stats.retries++;
    stats.why[why] = (stats.why[why] ?? 0) + 1;
  };

  async function one(order: Order): Promise<KeyResult> {
    const body = JSON.stringify({ amount: order.amount, currency: "USD", method: "wallet", reference: order.key, customer: { msisdn: order.msisdn }, metadata: { chaos: "1" } });
    const deadline = Date.now() + o.keyDeadlineMs;
    for (let attempt = 0; ; attempt++) {
      if (attempt > 0) await sleep(Math.min(2_000, 100 * 2 ** Math.min(attempt - 1, 5)) * (0.5 + o.rng.next()));
      if (Date.now() > deadline) return { key: order.key, msisdn: order.msisdn, status: null, code: "gave_up", paymentId: null, paymentStatus: null, attempts: attempt, replayed: false };
      stats.requests++;
      let res: Response;
      let text: string;
      try {
        res = await fetch(`${o.url}/v1/payments`, {
          method: "POST",
          headers: { authorization: `Bearer ${o.apiKey}`, "content-type": "application/json", "idempotency-key": order.key },
          body,
          signal: AbortSignal.timeout(o.timeoutMs),
        });
        text = await res.text();
      } catch (e) {
        retryBecause(e instanceof Error && e.name === "TimeoutError" ? "timeout" : "network");
        continue;
      }
      let json: Record<string, unknown> = {};
      try {
        json = JSON.parse(text) as Record<string, unknown>;
      } catch {
        // a proxy's or a dying server's page: judged by its status alone
      }
      const code = typeof (json.error as { code?: unknown } | undefined)?.code === "string" ? ((json.error as { code: string }).code) : null;
      if (res.status >= 500) {
        retryBecause(`${res.status}`);
        continue;
      }
      if (res.status === 429 || (res.status === 409 && code === "request_in_progress")) {
        retryBecause(res.status === 429 ? "429" : "409 request_in_progress");
        continue;
      }
      const ok = res.status >= 200 && res.status < 300;
      return {
        key: order.key,
        msisdn: order.msisdn,
        status: res.status,
        code,
        paymentId: ok && typeof json.id === "string" ? json.id : null,
        paymentStatus: ok && typeof json.status === "string" ? json.status : null,
        attempts: attempt + 1,
        replayed: res.headers.get("idempotent-replayed") === "true",
      };
    }
  }

  async function worker(): Promise<void> {
    for (;;) {
      const i = next++;
      if (i >= o.orders.length) return;
      const due = start + (i * 1000) / o.perSecond - Date.now();
      if (due > 0) await sleep(due);
      results[i] = await one(o.orders[i]!);
    }
  }

  await Promise.all(Array.from({ length: o.concurrency }, worker));
  return { results, stats };
}
