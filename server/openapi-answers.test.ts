import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getDb } from "@/db/client";
import { checkoutSessions } from "@/db/schema";
import { manualClock } from "@/server/clock";
import { carryOnStalledReplays } from "@/server/jobs/due-batch";
import { replayEventWindow } from "@/server/services/events/replay-event-window";
import { payCheckoutSession } from "@/server/services/checkout-sessions/pay-checkout-session";
import { payPaymentLink } from "@/server/services/payment-links/pay-payment-link";
import { transitionRefund } from "@/server/services/refunds/transition-refund";
import { confirmSettlementPayout, failSettlementPayout } from "@/server/services/settlements/pay-settlement";
import { attemptDelivery } from "@/server/services/webhooks/attempt-delivery";
import { sendTestEvent } from "@/server/services/webhooks/send-test-event";
import { documentedValidator as validator, publishedDocument } from "@/server/testing/api";
import { paymentBody, seedEvents, seedTestMerchant, uniqueRef, type TestMerchant } from "@/server/testing/fixtures";
import { startReceiver, testPoster, type Receiver } from "@/server/testing/webhooks";
import { callRoute, hourAgo, label, ROUTES, type Answer, type Call } from "./security/surface";

/**
 * Every success answer of the /v1 API, as the handlers give it, against the OpenAPI document the
 * API publishes: the status the document gives the operation, a body its schema for that status
 * holds with every object closed (a field the document does not name fails, as one it requires and
 * the answer lacks does), and the headers it promises. The operations are read from the document,
 * so one no call here reaches fails the last test; the statuses, event types and the like each
 * object's schema enumerates must all be met, so a state no call reaches fails it too.
 */

// Tests read into parsed JSON freely, as server/testing/api.ts lets them.
type Json = any;

const doc: Json = publishedDocument();

/** Operations as the document lists them: `METHOD /v1/...`. */
const documented: string[] = Object.entries<Record<string, unknown>>(doc.paths).flatMap(([path, methods]) => Object.keys(methods).map((m) => `${m.toUpperCase()} ${path}`));
const entryOf = (op: string): Json => {
  const [method, path] = op.split(" ");
  return doc.paths[path!][method!.toLowerCase()];
};

/** The statuses (and the like) the document enumerates for each kind of object it answers with. */
const ENUMERATED = ["status", "type", "health"] as const;
const expectedValues = new Map<string, Set<string>>();
function collectEnums(schema: Json) {
  if (Array.isArray(schema)) return schema.forEach(collectEnums);
  if (!schema || typeof schema !== "object") return;
  const kind = schema.properties?.object?.const;
  if (typeof kind === "string") {
    for (const field of ENUMERATED) {
      const values: unknown = schema.properties[field]?.enum;
      if (Array.isArray(values)) expectedValues.set(`${kind}.${field}`, new Set([...(expectedValues.get(`${kind}.${field}`) ?? []), ...(values as string[])]));
    }
  }
  for (const v of Object.values(schema)) collectEnums(v);
}
for (const op of documented) collectEnums(entryOf(op).responses[String(successStatus(op))]?.content?.["application/json"]?.schema);

/** The one 2xx an operation answers with. */
function successStatus(op: string): number {
  const statuses = Object.keys(entryOf(op).responses).filter((s) => /^2\d\d$/.test(s));
  if (statuses.length !== 1) throw new Error(`${op} documents ${statuses.length} success statuses, not one`);
  return Number(statuses[0]);
}

const covered = new Map<string, number>();
const seenValues = new Map<string, Set<string>>();
const seenHasMore = new Map<string, Set<boolean>>();

/** What every object in an answer shows of its enumerated fields. */
function noteValues(body: Json) {
  if (Array.isArray(body)) return body.forEach(noteValues);
  if (!body || typeof body !== "object") return;
  if (typeof body.object === "string") {
    for (const field of ENUMERATED) {
      if (typeof body[field] === "string") seenValues.set(`${body.object}.${field}`, (seenValues.get(`${body.object}.${field}`) ?? new Set()).add(body[field]));
    }
  }
  for (const v of Object.values(body)) noteValues(v);
}

/** The headers the document describes in its components: an answer carrying one must be documented to. */
const PROMISED = Object.keys(doc.components.headers);

function holdToEntry(op: string, res: Answer, replayed: boolean) {
  const status = successStatus(op);
  expect({ op, status: res.status, body: res.status === status ? "…" : res.body }).toEqual({ op, status, body: "…" });
  const response = entryOf(op).responses[String(status)];
  const schema = response.content["application/json"].schema;
  const validate = validator(op, schema);
  expect(validate(res.body), `${op}: ${JSON.stringify(validate.errors?.slice(0, 5))}\n${res.text.slice(0, 2000)}`).toBe(true);
  expect(res.headers.get("content-type"), op).toMatch(/^application\/json/);
  expect(res.headers.get("Request-Id"), op).toMatch(/^req_[0-9a-z]{26}$/);
  for (const name of PROMISED) {
    const value = res.headers.get(name);
    if (value === null) continue;
    expect({ op, header: name, documented: name in (response.headers ?? {}) }).toEqual({ op, header: name, documented: true });
    const headerSchema = validator(`header ${name}`, doc.components.headers[name].schema);
    expect(headerSchema(/^\d+$/.test(value) && name === "Retry-After" ? Number(value) : value), `${op} ${name}: ${value}`).toBe(true);
  }
  expect({ op, replayed: res.headers.get("Idempotent-Replayed") }).toEqual({ op, replayed: replayed ? "true" : null });
  if (typeof res.body?.has_more === "boolean") seenHasMore.set(op, (seenHasMore.get(op) ?? new Set()).add(res.body.has_more));
  noteValues(res.body);
  covered.set(op, (covered.get(op) ?? 0) + 1);
}

let m: TestMerchant;
let idem = 0;
const newKey = () => `answers-${Date.now().toString(36)}-${++idem}`;

/** One call of an operation, with our test key unless told otherwise, held to the document. */
async function call(op: string, c: Call & { params?: Record<string, string> } = {}, replayed = false): Promise<Answer> {
  const route = ROUTES.find((r) => label(r) === op);
  if (!route) throw new Error(`no route ${op}`);
  const { params, ...rest } = c;
  const res = await callRoute(params ? { ...route, params } : route, { key: m.keys.test, ...rest });
  holdToEntry(op, res, replayed);
  return res;
}

/** A call with an Idempotency-Key, then its retry: the stored answer, byte for byte, marked replayed. */
async function callTwice(op: string, c: Call & { params?: Record<string, string> } = {}): Promise<Answer> {
  const keyed = { ...c, idempotencyKey: newKey() };
  const first = await call(op, keyed);
  const again = await call(op, keyed, true);
  expect(again.text).toBe(first.text);
  return first;
}

const receivers: Receiver[] = [];
const poster = testPoster();
afterAll(async () => {
  poster.close();
  await Promise.all(receivers.map((r) => r.close()));
});

/** Objects made along the way, for the operations that read them. */
const w = {
  succeeded: [] as string[],
  refunds: [] as string[],
  events: new Map<string, string>(),
  endpoints: { failing: "", ok: "", unreachable: "" },
};

/** A payment the sandbox never answers for, so only the test helpers move it. */
const waiting = (overrides: Record<string, unknown> = {}) => call("POST /v1/payments", { body: paymentBody({ customer: { msisdn: "0770000003" }, ...overrides }), idempotencyKey: newKey() });
const drive = (id: string, action: string) => call("POST /v1/test_helpers/payments/{id}/{action}", { id, params: { action } });

beforeAll(async () => {
  m = await seedTestMerchant();
});

describe("every /v1 success answer is what the OpenAPI document says", () => {
  it("the document served is the one built from the schemas", async () => {
    const res = await call("GET /v1/openapi.json", { key: null });
    expect(res.body).toEqual(doc);
  });

  it("payments: quoted, created, replayed, driven through every status, read and listed", async () => {
    await call("POST /v1/payments/preview", { body: { amount: 1000, currency: "USD", method: "wallet" } });
    const created = await callTwice("POST /v1/payments", { body: paymentBody({ customer: { msisdn: "0770000003" }, metadata: { order_id: "1001" } }) });
    expect(created.body.status).toBe("awaiting_customer");
    const rejected = await call("POST /v1/payments", { body: paymentBody({ customer: { msisdn: "263770000006" } }), idempotencyKey: newKey() });
    expect(rejected.body).toMatchObject({ status: "failed", failure_code: "push_rejected" });
    for (const action of ["succeed", "fail", "expire", "unknown"]) {
      const p = await waiting();
      const moved = await drive(p.body.id, action);
      // Asked again: the payment as it is.
      await drive(p.body.id, action);
      if (action === "succeed") w.succeeded.push(moved.body.id);
      if (action === "unknown") await drive(p.body.id, "age");
      await call("GET /v1/payments/{id}", { id: p.body.id });
    }
    const zwg = await waiting({ currency: "ZWG" });
    w.succeeded.push((await drive(zwg.body.id, "succeed")).body.id);
    await call("GET /v1/payments/{id}", { id: created.body.id });
    expect((await call("GET /v1/payments", { query: { limit: "1" } })).body.has_more).toBe(true);
    expect((await call("GET /v1/payments", { query: { search: created.body.reference } })).body.data).toHaveLength(1);
    await call("GET /v1/payments", { query: { status: "unresolved", limit: "100" } });
  });

  it("refunds: created and replayed, then succeeded and failed, read and listed", async () => {
    const [paid] = w.succeeded;
    const first = await callTwice("POST /v1/refunds", { body: { payment: paid, amount: 300, reason: "requested_by_customer", metadata: { ticket: "7" } } });
    const second = await call("POST /v1/refunds", { body: { payment: paid, amount: 200 }, idempotencyKey: newKey() });
    const ctx = await m.ctx();
    await transitionRefund(ctx, { refundId: first.body.id, to: "succeeded" });
    await transitionRefund(ctx, { refundId: second.body.id, to: "failed", failure: { code: "refund_declined", message: "The wallet could not be credited." } });
    w.refunds.push(first.body.id, second.body.id);
    for (const id of w.refunds) await call("GET /v1/refunds/{id}", { id });
    expect((await call("GET /v1/refunds", { query: { limit: "1" } })).body.has_more).toBe(true);
    await call("GET /v1/refunds", { query: { payment: paid!, limit: "100" } });
    expect((await call("GET /v1/payments/{id}", { id: paid })).body.amount_refunded).toBe(300);
  });

  it("payment links: single-use and reusable, paid through, deactivated, read and listed", async () => {
    const single = await callTwice("POST /v1/payment_links", {
      body: { amount: 500, currency: "USD", description: "One ticket", single_use: true, expires_at: new Date(Date.now() + 86_400_000).toISOString(), metadata: { sku: "t1" } },
    });
    const reusable = await call("POST /v1/payment_links", { body: { amount: 800, currency: "ZWG", description: "Donation" } });
    const paid = await payPaymentLink(await m.ctx(), { linkId: single.body.id, msisdn: "0770000003", idempotencyKey: newKey() });
    expect((await call("GET /v1/payments/{id}", { id: paid.id })).body.payment_link).toBe(single.body.id);
    await call("POST /v1/payment_links/{id}/deactivate", { id: reusable.body.id });
    await call("POST /v1/payment_links/{id}/deactivate", { id: reusable.body.id, idempotencyKey: newKey() });
    for (const id of [single.body.id, reusable.body.id]) await call("GET /v1/payment_links/{id}", { id });
    expect((await call("GET /v1/payment_links", { query: { limit: "1" } })).body.has_more).toBe(true);
    await call("GET /v1/payment_links", { query: { active: "false", limit: "100" } });
    await call("GET /v1/payment_links", { query: { active: "true", limit: "100" } });
  });

  it("checkout sessions: open, complete and expired, read and listed", async () => {
    const open = await callTwice("POST /v1/checkout_sessions", {
      body: { amount: 700, currency: "USD", reference: uniqueRef("cs"), success_url: "https://shop.test/done", cancel_url: "https://shop.test/cart", expires_in: 600, metadata: { cart: "9" } },
    });
    const toPay = await call("POST /v1/checkout_sessions", { body: { amount: 900, currency: "USD", reference: uniqueRef("cs"), success_url: "https://shop.test/done" } });
    const attempt = await payCheckoutSession(await m.ctx(), { sessionId: toPay.body.id, msisdn: "0770000003", idempotencyKey: newKey() });
    expect((await call("GET /v1/payments/{id}", { id: attempt.id })).body.checkout_session).toBe(toPay.body.id);
    await drive(attempt.id, "succeed");
    const lapsed = await call("POST /v1/checkout_sessions", { body: { amount: 300, currency: "USD", reference: uniqueRef("cs"), success_url: "https://shop.test/done" } });
    await (await getDb()).update(checkoutSessions).set({ expiresAt: new Date(Date.now() - 1000) }).where(eq(checkoutSessions.id, lapsed.body.id));
    const statuses = [];
    for (const id of [open.body.id, toPay.body.id, lapsed.body.id]) statuses.push((await call("GET /v1/checkout_sessions/{id}", { id })).body.status);
    expect(statuses).toEqual(["open", "complete", "expired"]);
    expect((await call("GET /v1/checkout_sessions", { query: { limit: "1" } })).body.has_more).toBe(true);
    await call("GET /v1/checkout_sessions", { query: { limit: "100" } });
  });

  it("webhook endpoints: created with their secret, read without, changed, rolled, deleted; deliveries with their attempts", async () => {
    const failing = await startReceiver(() => 500);
    const ok = await startReceiver();
    receivers.push(failing, ok);
    const a = await callTwice("POST /v1/webhook_endpoints", { body: { url: failing.url, enabled_events: ["payment.succeeded"], description: "orders", metadata: { team: "ops" } } });
    expect(a.body.secret).toMatch(/^whsec_/);
    const b = await call("POST /v1/webhook_endpoints", { body: { url: ok.url, enabled_events: ["*"] } });
    const unreachable = await call("POST /v1/webhook_endpoints", { body: { url: "http://127.0.0.1:9/hooks", enabled_events: ["*"] } });
    w.endpoints = { failing: a.body.id, ok: b.body.id, unreachable: unreachable.body.id };
    const read = await call("GET /v1/webhook_endpoints/{id}", { id: a.body.id });
    expect(read.body).not.toHaveProperty("secret");
    // The document says so too: a read that showed the secret would not be the documented read.
    const documentedRead = validator("GET /v1/webhook_endpoints/{id}", entryOf("GET /v1/webhook_endpoints/{id}").responses["200"].content["application/json"].schema);
    expect(documentedRead({ ...read.body, secret: a.body.secret })).toBe(false);
    await call("POST /v1/webhook_endpoints/{id}", { id: a.body.id, body: { description: null, metadata: { team: "" } } });
    const rolled = await call("POST /v1/webhook_endpoints/{id}/roll_secret", { id: a.body.id, idempotencyKey: newKey() });
    expect(rolled.body.previous_secret_expires_at).not.toBeNull();

    // Deliveries: five failed attempts degrade an endpoint; one attempt succeeds; one gets no answer; one is given up.
    const ctx = await m.ctx();
    const event = (await call("GET /v1/events", { query: { type: "payment.succeeded", limit: "1" } })).body.data[0].id;
    const replayTo = async (endpoint: string) => (await call("POST /v1/events/{id}/replay", { id: event, body: { endpoint } })).body.data[0].id as string;
    const attempt = (id: string, at = new Date()) => attemptDelivery({ db: ctx.db, clock: manualClock(at), webhooks: poster }, id);
    for (let i = 0; i < 5; i++) await attempt(await replayTo(a.body.id));
    expect((await attempt(await replayTo(b.body.id)))?.status).toBe("delivered");
    await attempt(await replayTo(unreachable.body.id));
    const givenUp = await replayTo(a.body.id);
    await attempt(givenUp);
    expect((await attempt(givenUp, new Date(Date.now() + 25 * 3_600_000)))?.status).toBe("failed");
    await callTwice("POST /v1/events/{id}/replay", { id: event });
    await sendTestEvent(ctx, b.body.id);

    expect((await call("GET /v1/webhook_endpoints/{id}", { id: a.body.id })).body.health).toBe("degraded");
    await call("POST /v1/webhook_endpoints/{id}", { id: unreachable.body.id, body: { disabled: true } });
    expect((await call("GET /v1/webhook_endpoints", { query: { limit: "1" } })).body.has_more).toBe(true);
    await call("GET /v1/webhook_endpoints", { query: { limit: "100" } });
    const deliveries = await call("GET /v1/webhook_deliveries", { query: { limit: "100" } });
    expect(deliveries.body.data.some((d: Json) => d.attempts.length > 0 && d.attempts[0].status_code === null)).toBe(true);
    expect((await call("GET /v1/webhook_deliveries", { query: { limit: "1" } })).body.has_more).toBe(true);
    await call("GET /v1/webhook_deliveries", { query: { status: "failed", endpoint: a.body.id } });

    const spare = await call("POST /v1/webhook_endpoints", { body: { url: ok.url, enabled_events: ["refund.failed"] } });
    await callTwice("DELETE /v1/webhook_endpoints/{id}", { id: spare.body.id });
  });

  it("settlements: batched by the test helper, paid, failed and pending, with their lines", async () => {
    const run = await callTwice("POST /v1/test_helpers/settlements/run");
    expect(run.body.data.length).toBe(2);
    const ctx = await m.ctx();
    const [usd, zwg] = [run.body.data.find((s: Json) => s.currency === "USD"), run.body.data.find((s: Json) => s.currency === "ZWG")];
    await confirmSettlementPayout(ctx, usd.id);
    await failSettlementPayout(ctx, zwg.id, "The bank returned the transfer.");
    // The failed batch's payment, in a new pending one.
    const again = await call("POST /v1/test_helpers/settlements/run");
    expect(again.body.data).toHaveLength(1);
    for (const id of [usd.id, zwg.id, again.body.data[0].id]) await call("GET /v1/settlements/{id}", { id });
    const lines = await call("GET /v1/settlements/{id}/lines", { id: usd.id, query: { limit: "100" } });
    expect(new Set(lines.body.data.map((l: Json) => l.type))).toEqual(new Set(["payment", "refund"]));
    expect((await call("GET /v1/settlements/{id}/lines", { id: usd.id, query: { limit: "1" } })).body.has_more).toBe(true);
    expect((await call("GET /v1/settlements", { query: { limit: "1" } })).body.has_more).toBe(true);
    await call("GET /v1/settlements", { query: { limit: "100" } });
  });

  it("events: one of each type the service makes, each also the body its webhook entry documents; a window replayed", async () => {
    const all = await call("GET /v1/events", { query: { limit: "100" } });
    expect((await call("GET /v1/events", { query: { limit: "1" } })).body.has_more).toBe(true);
    const byType = new Map<string, Json>();
    for (const e of all.body.data) byType.set(e.type, e);
    expect([...byType.keys()].sort()).toEqual(Object.keys(doc.webhooks).sort());
    for (const [type, listed] of byType) {
      const read = await call("GET /v1/events/{id}", { id: listed.id });
      const validate = validator(`webhook ${type}`, doc.webhooks[type].post.requestBody.content["application/json"].schema);
      expect(validate(read.body), `${type}: ${JSON.stringify(validate.errors?.slice(0, 5))}\n${read.text.slice(0, 2000)}`).toBe(true);
    }
    await callTwice("POST /v1/events/replay", { body: { created_gte: hourAgo(), dry_run: true } });
    const done = await call("POST /v1/events/replay", { body: { created_gte: hourAgo(), types: ["refund.failed"], endpoint: w.endpoints.ok, only_undelivered: true } });
    await call("GET /v1/event_replays/{id}", { id: done.body.id });

    // A window longer than the request's time is answered `running`, carried on by a runner; one
    // whose endpoint is disabled meanwhile stops. (Events written last: their bodies are not an event's.)
    const ctx = await m.ctx();
    const target = await call("POST /v1/webhook_endpoints", { body: { url: "https://127.0.0.1:9/window", enabled_events: ["payment.succeeded"] } });
    const long = await replayEventWindow(ctx, { createdGte: await seedEvents(m, 600), endpointId: target.body.id }, { answerWithinMs: 0 });
    expect((await call("GET /v1/event_replays/{id}", { id: long.id! })).body).toMatchObject({ status: "running", events: 500 });
    await call("POST /v1/webhook_endpoints/{id}", { id: target.body.id, body: { disabled: true } });
    expect(await carryOnStalledReplays({ ...ctx, merchantId: m.merchant.id }, 1)).toBe(0);
    expect((await call("GET /v1/event_replays/{id}", { id: long.id! })).body).toMatchObject({ status: "stopped", error: { code: "parameter_invalid", param: "endpoint" } });
    expect((await call("GET /v1/event_replays", { query: { limit: "1" } })).body.has_more).toBe(true);
    // The two kept (dry runs keep nothing), newest first.
    expect((await call("GET /v1/event_replays", { query: { limit: "100" } })).body.data.map((r: Json) => r.id)).toEqual([long.id, done.body.id]);
  });

  it("made a successful call of every operation the document lists, and met every value its objects enumerate", () => {
    expect(documented.filter((op) => !covered.has(op))).toEqual([]);
    for (const [field, values] of expectedValues) expect({ field, seen: [...(seenValues.get(field) ?? [])].sort() }).toEqual({ field, seen: [...values].sort() });
    // Every list that pages was seen with more to come and with none.
    for (const op of documented.filter((op) => entryOf(op).parameters.some((p: Json) => p.name === "limit"))) {
      expect({ op, has_more: [...(seenHasMore.get(op) ?? [])].sort() }).toEqual({ op, has_more: [false, true] });
    }
  });
});

describe("the check itself", () => {
  it("refuses a field the document does not name, and a required one missing", () => {
    const op = "GET /v1/refunds/{id}";
    const validate = validator(op, entryOf(op).responses["200"].content["application/json"].schema);
    const refund = {
      id: "re_x",
      object: "refund",
      livemode: false,
      payment: "pay_x",
      amount: 1,
      currency: "USD",
      status: "pending",
      reason: null,
      failure_code: null,
      failure_message: null,
      provider_reference: null,
      metadata: {},
      created_at: "2026-01-01T00:00:00.000Z",
      status_transitions: { succeeded_at: null, failed_at: null },
    };
    expect(validate(refund), JSON.stringify(validate.errors)).toBe(true);
    expect(validate({ ...refund, extra: 1 })).toBe(false);
    expect(validate({ ...refund, status_transitions: { ...refund.status_transitions, extra: null } })).toBe(false);
    const { currency: _, ...missing } = refund;
    expect(validate(missing)).toBe(false);
  });
});
