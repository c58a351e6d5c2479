import { sql } from "drizzle-orm";
import { TRPCClientError } from "@trpc/client";
import { fetchRequestHandler } from "@trpc/server/adapters/fetch";
import { getDb, watchStatements } from "@/db/client";
import { rowsOf } from "@/db/rows";
import { STREAMED_PROCEDURES } from "@/server/domain/staff";
import { createCheckoutSession } from "@/server/services/checkout-sessions/create-checkout-session";
import { replayEvent } from "@/server/services/events/replay-event";
import { replayEventWindow } from "@/server/services/events/replay-event-window";
import { createPaymentLink } from "@/server/services/payment-links/create-payment-link";
import { transitionPayment } from "@/server/services/payments/transition-payment";
import { runSettlements } from "@/server/services/settlements/run-settlements";
import { createEndpoint } from "@/server/services/webhooks/create-endpoint";
import { seedPayment, seedPendingRefund, seedTestMerchant, uniqueRef, type TestMerchant } from "@/server/testing/fixtures";
import type { TrpcContext } from "@/server/trpc/init";
import { appRouter } from "@/server/trpc/routers/_app";
import { dashboardClient, streamed } from "@/server/trpc/testing";

/** One of each object a merchant can own, in one environment. */
export type Objects = {
  livemode: boolean;
  /** Awaiting the customer: a leaked test helper or callback would move it. */
  payment: string;
  /** Succeeded, settled, with a pending refund. */
  paidPayment: string;
  refund: string;
  paymentLink: string;
  checkoutSession: string;
  /** `payment.expired` of a third payment, replayed once to `webhookEndpoint`. */
  event: string;
  /** A window replay of the last hour, done. */
  eventReplay: string;
  webhookEndpoint: string;
  webhookDelivery: string;
  settlement: string;
  /** A reference of this environment's payments, for the list's `search`. */
  reference: string;
};

/** Every object of a merchant in one environment, made through the same verbs the API uses. */
export async function seedObjects(m: TestMerchant, livemode: boolean): Promise<Objects> {
  const ctx = await m.ctx(livemode);
  const payment = await seedPayment(m, "awaiting_customer", { livemode });
  const paid = await seedPayment(m, "succeeded", { livemode, at: new Date(Date.now() - 60_000) });
  const [settlement] = await runSettlements(ctx, { cutoff: new Date(), merchantId: m.merchant.id, livemode });
  const refund = await seedPendingRefund(paid);
  const expiring = await seedPayment(m, "awaiting_customer", { livemode });
  const { event } = await transitionPayment(ctx, { paymentId: expiring.id, to: "expired" });
  const endpoint = await createEndpoint(ctx, { url: "https://127.0.0.1:9/hooks", enabledEvents: ["*"] });
  const [delivery] = (await replayEvent(ctx, event!.id)).deliveries;
  const replay = await replayEventWindow(ctx, { createdGte: new Date(Date.now() - 3_600_000), endpointId: endpoint.id });
  const link = await createPaymentLink(ctx, { amount: 500, currency: "USD", description: "Isolation probe" });
  const session = await createCheckoutSession(ctx, { amount: 700, currency: "USD", reference: uniqueRef("cs"), successUrl: "https://shop.test/done" });
  return {
    livemode,
    payment: payment.id,
    paidPayment: paid.id,
    refund: refund.id,
    paymentLink: link.id,
    checkoutSession: session.id,
    event: event!.id,
    eventReplay: replay.id!,
    webhookEndpoint: endpoint.id,
    webhookDelivery: delivery!.id,
    settlement: settlement!.id,
    reference: payment.reference,
  };
}

/**
 * The cast of every matrix: `us` calls with its test key; `them` is another merchant; `usLive`
 * are our own objects in the other environment.
 */
export type World = { us: TestMerchant; them: TestMerchant; ours: Objects; usLive: Objects; theirs: Objects };

export async function seedWorld(): Promise<World> {
  const us = await seedTestMerchant();
  const them = await seedTestMerchant();
  const [ours, usLive, theirs] = [await seedObjects(us, false), await seedObjects(us, true), await seedObjects(them, false)];
  return { us, them, ours, usLive, theirs };
}

/** Every id in a set of objects (the reference is not an id). */
export function idsOf(o: Objects): string[] {
  const { livemode: _l, reference: _r, ...ids } = o;
  return Object.values(ids);
}

/**
 * Tables scoped by a `merchant_id` column. Left out: api_keys (using a key stamps `last_used_at`)
 * and idempotency_keys (a refused request with a key records its own answer, for the caller).
 */
const MERCHANT_TABLES = [
  "payments",
  "refunds",
  "payment_links",
  "checkout_sessions",
  "events",
  "event_replays",
  "webhook_endpoints",
  "webhook_deliveries",
  "settlements",
  "staff_users",
  "security_events",
];

/**
 * A digest of everything the given merchants own, row by row, and of the rows hanging off it
 * (settlement lines, delivery attempts, outbox rows of their events): equal digests before and
 * after a refused request mean it wrote nothing. Scoped to the merchants, so other test files
 * writing to a shared PostgreSQL do not disturb it.
 */
export async function fingerprint(merchantIds: string[]): Promise<Record<string, string>> {
  const db = await getDb();
  const ids = sql.join(merchantIds.map((id) => sql`${id}`), sql`, `);
  const digest = async (name: string, from: ReturnType<typeof sql>) => {
    const [row] = rowsOf<{ d: string; n: string | number }>(
      await db.execute(sql`select md5(coalesce(string_agg(t::text, '|' order by t::text), '')) as d, count(*) as n from (${from}) t`),
    );
    return [name, `${row!.n}:${row!.d}`] as const;
  };
  const parts = await Promise.all([
    ...MERCHANT_TABLES.map((table) => digest(table, sql`select * from ${sql.identifier(table)} where merchant_id in (${ids})`)),
    digest("settlement_lines", sql`select l.* from settlement_lines l join settlements s on s.id = l.settlement_id where s.merchant_id in (${ids})`),
    digest("webhook_attempts", sql`select a.* from webhook_attempts a join webhook_deliveries d on d.id = a.delivery_id where d.merchant_id in (${ids})`),
    digest("outbox", sql`select o.* from outbox o where o.payload->>'merchant_id' in (${ids})`),
    digest("merchants", sql`select * from merchants where id in (${ids})`),
  ]);
  return Object.fromEntries(parts);
}

// Tests read into parsed JSON freely, as server/testing/api.ts lets them.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type WireAnswer = { status: number; body: any };

/**
 * One dashboard call over tRPC's own fetch handler, as the browser makes it: the answer is what
 * goes over the wire, error formatter included. Only the cookie-to-context step is replaced.
 */
export async function dashboardWire(ctx: TrpcContext, path: string, type: "query" | "mutation", input: unknown): Promise<WireAnswer> {
  if (STREAMED_PROCEDURES.has(path)) return streamedWire(ctx, path, input);
  const url = new URL(`/api/trpc/${path}`, "http://localhost:3000");
  if (type === "query") url.searchParams.set("input", JSON.stringify(input));
  const req = new Request(url, type === "query" ? { method: "GET" } : { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(input) });
  const res = await fetchRequestHandler({ endpoint: "/api/trpc", req, router: appRouter, createContext: async () => ctx });
  return { status: res.status, body: await res.json() };
}

/**
 * An API key's own statements: its lookup by hash, which the key cache skips for a few seconds,
 * and the last-used write, at most once a minute. They depend on the clock, not on the id asked.
 */
const keyBookkeeping = (s: string) => /from "api_keys" .* where "api_keys"\."hash" = \$1$/.test(s) || s.startsWith('update "api_keys" set "last_used_at"');

/**
 * What a call asks the database: the SQL text of every statement, in order (values are
 * parameters, so an id sent is in none), leaving out the key's bookkeeping.
 */
export async function statementsOf(call: () => Promise<{ status: number }>): Promise<{ status: number; statements: string[] }> {
  const statements: string[] = [];
  const res = await watchStatements((s) => {
    if (!keyBookkeeping(s)) statements.push(s);
  }, call);
  return { status: res.status, statements };
}

/**
 * A streamed procedure's call as the page makes it (its streaming link), read to its end. Its HTTP
 * status is 200 once the stream starts, so the answer's status is the one its error carries.
 */
async function streamedWire(ctx: TrpcContext, path: string, input: unknown): Promise<WireAnswer> {
  // The client's procedures by name, as tRPC's proxy resolves a path.
  const procedure = path.split(".").reduce<any>((at, part) => at[part], dashboardClient(ctx)); // eslint-disable-line @typescript-eslint/no-explicit-any
  try {
    return { status: 200, body: { result: { data: (await streamed(procedure.mutate(input))).result } } };
  } catch (e) {
    if (!(e instanceof TRPCClientError)) throw e;
    return { status: e.data.httpStatus, body: { error: e.shape } };
  }
}
