import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getDb } from "@/db/client";
import type { EventRow } from "@/db/schema";
import { manualClock } from "@/server/clock";
import type { PaymentStatus } from "@/server/domain/payment-status";
import { LocalRunner } from "@/server/jobs/local-runner";
import { providers } from "@/server/providers/registry";
import { transitionPayment } from "@/server/services/payments/transition-payment";
import { api } from "@/server/testing/api";
import { expectError } from "@/server/testing/expect-error";
import { seedPayment, seedTestMerchant, type TestMerchant } from "@/server/testing/fixtures";
import { startReceiver, testPoster } from "@/server/testing/webhooks";

type Receiver = Awaited<ReturnType<typeof startReceiver>>;

describe("/v1/events and /v1/webhook_deliveries", () => {
  let m: TestMerchant;
  let other: TestMerchant;
  let receiver: Receiver;
  const poster = testPoster();
  // Starts at the real now: deliveries the API queues (on the system clock) are then due for this runner.
  const clock = manualClock(new Date());
  let runner: LocalRunner;
  const made: EventRow[] = [];

  /** Moves a fresh payment to `to` at the clock's time and returns its event. */
  async function event(to: Exclude<PaymentStatus, "awaiting_customer" | "unknown">, metadata: Record<string, string> = {}) {
    const db = await getDb();
    const p = await seedPayment(m, to === "unresolved" ? "unknown" : "awaiting_customer", { at: clock.now() });
    if (Object.keys(metadata).length) {
      const { payments } = await import("@/db/schema");
      const { eq } = await import("drizzle-orm");
      await db.update(payments).set({ metadata }).where(eq(payments.id, p.id));
    }
    const { event: e } = await transitionPayment(
      { db, clock },
      to === "failed" ? { paymentId: p.id, to, failure: { code: "declined", message: "Declined." } } : { paymentId: p.id, to },
    );
    clock.advance(1_000);
    made.push(e!);
    return e!;
  }

  const run = async () => {
    await runner.tick();
    await runner.settled();
  };

  beforeAll(async () => {
    [m, other] = await Promise.all([seedTestMerchant(), seedTestMerchant()]);
    receiver = await startReceiver();
    runner = new LocalRunner({ db: await getDb(), clock, providers, webhooks: poster, merchantId: m.merchant.id });
    for (let i = 0; i < 8; i++) await event("succeeded", { order: `o-${i}` });
    for (let i = 0; i < 4; i++) await event("failed");
    for (let i = 0; i < 3; i++) await event("expired");
  });
  afterAll(async () => {
    poster.close();
    await receiver.close();
  });

  const newestFirst = () => [...made].reverse().map((e) => e.id);

  it("lists events newest first, with the event shape and the resource's metadata", async () => {
    const res = await api("GET", "/v1/events?limit=100", { key: m.keys.test });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ object: "list", has_more: false, url: "/v1/events" });
    expect(res.body.data.map((e: { id: string }) => e.id)).toEqual(newestFirst());
    const first = res.body.data.at(-1);
    expect(Object.keys(first).sort()).toEqual(["created_at", "data", "id", "livemode", "object", "type"]);
    expect(first).toMatchObject({ object: "event", type: "payment.succeeded", livemode: false });
    expect(first.data.object).toMatchObject({ object: "payment", status: "succeeded", metadata: { order: "o-0" } });
    expect(first.data.previous_attributes).toEqual({ status: "awaiting_customer" });

    const one = await api("GET", `/v1/events/${first.id}`, { key: m.keys.test });
    expect(one.body).toEqual(first);
  });

  it("pages both ways without gaps or duplicates", async () => {
    const seen: string[] = [];
    let after: string | undefined;
    for (;;) {
      const res = await api("GET", `/v1/events?limit=4${after ? `&starting_after=${after}` : ""}`, { key: m.keys.test });
      seen.push(...res.body.data.map((e: { id: string }) => e.id));
      if (!res.body.has_more) break;
      after = seen.at(-1);
    }
    expect(seen).toEqual(newestFirst());
    const back = await api("GET", `/v1/events?limit=4&ending_before=${seen.at(-1)}`, { key: m.keys.test });
    expect(back.body.data.map((e: { id: string }) => e.id)).toEqual(seen.slice(-5, -1));
    expect(back.body.has_more).toBe(true);
  });

  it("filters by one or several types and by creation time", async () => {
    const ids = (res: { body: { data: { id: string; type: string }[] } }) => res.body.data.map((e) => e.id);
    const failed = await api("GET", "/v1/events?limit=100&type=payment.failed", { key: m.keys.test });
    expect(ids(failed)).toEqual(newestFirst().filter((id) => made.find((e) => e.id === id)!.type === "payment.failed"));
    const both = newestFirst().filter((id) => made.find((e) => e.id === id)!.type !== "payment.succeeded");
    expect(ids(await api("GET", "/v1/events?limit=100&type=payment.failed,payment.expired", { key: m.keys.test }))).toEqual(both);
    expect(ids(await api("GET", "/v1/events?limit=100&type=payment.failed&type=payment.expired", { key: m.keys.test }))).toEqual(both);

    const from = made[4]!.createdAt;
    const to = made[9]!.createdAt;
    const windowed = await api("GET", `/v1/events?limit=100&created[gte]=${from.toISOString()}&created[lt]=${to.toISOString()}`, { key: m.keys.test });
    expect(ids(windowed)).toEqual(made.slice(4, 9).map((e) => e.id).reverse());
    // The same bounds swapped: refused, not answered with an empty list.
    const swapped = `/v1/events?created[gte]=${to.toISOString()}&created[lt]=${from.toISOString()}`;
    expectError(await api("GET", swapped, { key: m.keys.test }), 400, "invalid_request", "parameter_invalid", "created[lt]");

    expectError(await api("GET", "/v1/events?type=payment.refunded", { key: m.keys.test }), 400, "invalid_request", "parameter_invalid", "type");
  });

  it("another merchant's and the other environment's events are missing and never listed", async () => {
    const id = made[0]!.id;
    for (const key of [other.keys.test, m.keys.live]) {
      expectError(await api("GET", `/v1/events/${id}`, { key }), 404, "not_found", "resource_missing", "id");
      expectError(await api("POST", `/v1/events/${id}/replay`, { key }), 404, "not_found", "resource_missing", "id");
      expect((await api("GET", "/v1/events?limit=100", { key })).body.data).toEqual([]);
    }
    expectError(await api("GET", "/v1/events/evt_nope", { key: m.keys.test }), 404, "not_found", "resource_missing", "id");
  });

  it("delivers, then replays one event to every subscribed endpoint or to the one named", async () => {
    const all = await api("POST", "/v1/webhook_endpoints", { key: m.keys.test, body: { url: receiver.url, enabled_events: ["*"] } });
    const failedOnly = await api("POST", "/v1/webhook_endpoints", { key: m.keys.test, body: { url: `${receiver.url}?f`, enabled_events: ["payment.failed"] } });
    const e = await event("succeeded");
    await run();
    expect(receiver.received.filter((r) => JSON.parse(r.body).id === e.id)).toHaveLength(1);

    const replay = await api("POST", `/v1/events/${e.id}/replay`, { key: m.keys.test });
    expect(replay.status).toBe(200);
    expect(replay.body.data).toHaveLength(1);
    expect(replay.body.data[0]).toMatchObject({ object: "webhook_delivery", event: e.id, endpoint: all.body.id, status: "pending", reason: "replay", attempts: [] });
    await run();
    expect(receiver.received.filter((r) => JSON.parse(r.body).id === e.id)).toHaveLength(2);

    // Named, it goes to that endpoint whatever the endpoint subscribes to.
    const named = await api("POST", `/v1/events/${e.id}/replay`, { key: m.keys.test, body: { endpoint: failedOnly.body.id } });
    expect(named.body.data.map((d: { endpoint: string }) => d.endpoint)).toEqual([failedOnly.body.id]);
    await run();
    expect(receiver.received.filter((r) => JSON.parse(r.body).id === e.id && r.path.endsWith("?f"))).toHaveLength(1);

    const theirs = await api("POST", "/v1/webhook_endpoints", { key: other.keys.test, body: { url: receiver.url, enabled_events: ["*"] } });
    expectError(await api("POST", `/v1/events/${e.id}/replay`, { key: m.keys.test, body: { endpoint: theirs.body.id } }), 404, "not_found", "resource_missing", "endpoint");
    await api("POST", `/v1/webhook_endpoints/${failedOnly.body.id}`, { key: m.keys.test, body: { disabled: true } });
    expectError(await api("POST", `/v1/events/${e.id}/replay`, { key: m.keys.test, body: { endpoint: failedOnly.body.id } }), 400, "invalid_request", "parameter_invalid", "endpoint");

    // The deliveries log: filter by event, endpoint and status; attempts included.
    const log = await api("GET", `/v1/webhook_deliveries?event=${e.id}&endpoint=${all.body.id}`, { key: m.keys.test });
    expect(log.body.data).toHaveLength(2);
    expect(log.body.data.map((d: { reason: string }) => d.reason).sort()).toEqual(["event", "replay"]);
    for (const d of log.body.data) {
      expect(d).toMatchObject({ status: "delivered", attempt_count: 1, next_attempt_at: null, event_type: "payment.succeeded" });
      expect(d.attempts).toHaveLength(1);
      expect(d.attempts[0]).toMatchObject({ status_code: 200, error: null, response_body: "ok" });
      expect(Object.keys(d.attempts[0]).sort()).toEqual(["attempted_at", "error", "latency_ms", "response_body", "status_code"]);
    }
    expect((await api("GET", `/v1/webhook_deliveries?status=pending&endpoint=${all.body.id}`, { key: m.keys.test })).body.data).toEqual([]);
    expect((await api("GET", `/v1/webhook_deliveries?event=${e.id}`, { key: other.keys.test })).body.data).toEqual([]);
    await api("DELETE", `/v1/webhook_endpoints/${all.body.id}`, { key: m.keys.test });
  });

  it("replays a window: a dry run counts, the replay queues, only_undelivered skips what arrived", async () => {
    let up = false;
    const r = await startReceiver(() => (up ? 200 : 500));
    try {
      const ep = await api("POST", "/v1/webhook_endpoints", { key: m.keys.test, body: { url: r.url, enabled_events: ["payment.succeeded", "payment.failed"] } });
      const start = clock.now();
      const outage = [await event("succeeded"), await event("failed"), await event("expired"), await event("succeeded")];
      await run(); // the receiver is down: every attempt fails
      up = true;
      // One of them got through before the window replay (a retry, say).
      await api("POST", `/v1/events/${outage[0]!.id}/replay`, { key: m.keys.test, body: { endpoint: ep.body.id } });
      await run();

      const body = { created_gte: start.toISOString(), created_lt: clock.now().toISOString(), endpoint: ep.body.id };
      const window = { created_gte: body.created_gte, created_lt: body.created_lt };
      const dry = await api("POST", "/v1/events/replay", { key: m.keys.test, body: { ...body, dry_run: true } });
      // Named or not, a window gives the endpoint only what it subscribes to: the expired event
      // never goes to a receiver that asked for successes and failures.
      // A dry run keeps nothing: it has no id to follow.
      expect(dry.body).toMatchObject({ id: null, object: "event_replay", livemode: false, dry_run: true, status: "done", ...window, endpoint: ep.body.id, events: 4, deliveries: 3 });
      const dryUndelivered = await api("POST", "/v1/events/replay", { key: m.keys.test, body: { ...body, dry_run: true, only_undelivered: true } });
      expect(dryUndelivered.body).toMatchObject({ events: 4, deliveries: 2 });
      const typed = await api("POST", "/v1/events/replay", { key: m.keys.test, body: { ...body, dry_run: true, types: ["payment.failed"] } });
      expect(typed.body).toMatchObject({ events: 1, deliveries: 1 });

      const before = r.received.length;
      const real = await api("POST", "/v1/events/replay", { key: m.keys.test, body: { ...body, only_undelivered: true } });
      expect(real.body).toMatchObject({ object: "event_replay", livemode: false, dry_run: false, status: "done", ...window, only_undelivered: true, events: 4, deliveries: 2, error: null });
      // Kept: read again, and listed first.
      expect(real.body.id).toMatch(/^evr_/);
      expect((await api("GET", `/v1/event_replays/${real.body.id}`, { key: m.keys.test })).body).toEqual(real.body);
      expect((await api("GET", "/v1/event_replays?limit=1", { key: m.keys.test })).body.data).toEqual([real.body]);
      await run();
      const got = r.received.slice(before).map((x) => JSON.parse(x.body).id).sort();
      expect(got).toEqual([outage[1]!.id, outage[3]!.id].sort());
      // One event picked for the endpoint goes to it, subscribed or not.
      const picked = await api("POST", `/v1/events/${outage[2]!.id}/replay`, { key: m.keys.test, body: { endpoint: ep.body.id } });
      expect(picked.body.data.map((d: { endpoint: string }) => d.endpoint)).toEqual([ep.body.id]);
      await run();
      // The replays brought the outage's pending retries forward rather than adding deliveries
      // beside them: nothing is left to reach the endpoint a second time later.
      expect((await api("GET", `/v1/webhook_deliveries?status=pending&endpoint=${ep.body.id}`, { key: m.keys.test })).body.data).toEqual([]);

      // Without an endpoint, the same: the expired event has no taker.
      const unnamed = await api("POST", "/v1/events/replay", { key: m.keys.test, body: { created_gte: start.toISOString(), created_lt: body.created_lt, dry_run: true } });
      expect(unnamed.body).toMatchObject({ events: 4, deliveries: 3 });

      // Without created_lt the window ends when the request is answered (on the system's clock,
      // not this test's), and the answer says when, to be sent back.
      const asked = Date.now();
      const openStart = new Date(asked - 3_600_000).toISOString();
      const open = await api("POST", "/v1/events/replay", { key: m.keys.test, body: { created_gte: openStart, endpoint: ep.body.id, dry_run: true } });
      expect(open.body).toMatchObject({ created_gte: openStart, created_lt: expect.any(String) });
      expect(Date.parse(open.body.created_lt)).toBeGreaterThanOrEqual(asked);
      expect(Date.parse(open.body.created_lt)).toBeLessThanOrEqual(Date.now());

      expectError(
        await api("POST", "/v1/events/replay", { key: m.keys.test, body: { created_gte: body.created_lt, created_lt: body.created_gte } }),
        400,
        "invalid_request",
        "parameter_invalid",
        "created_lt",
      );
      expectError(await api("POST", "/v1/events/replay", { key: m.keys.test, body: {} }), 400, "invalid_request", "parameter_invalid", "created_gte");
      // A start in the future (a mistyped year) with no end: a window that would hold nothing, refused.
      const future = await api("POST", "/v1/events/replay", { key: m.keys.test, body: { created_gte: new Date(Date.now() + 365 * 86_400_000).toISOString(), dry_run: true } });
      expectError(future, 400, "invalid_request", "parameter_invalid", "created_gte");
      expect(future.body.error.message).toBe("created_gte is in the future: without created_lt the window ends now, so it would hold no event.");
    } finally {
      await r.close();
    }
  });

  it("a replay never doubles a pending delivery: a later retry comes forward, one being attempted is left alone", async () => {
    const r = await startReceiver(() => 500);
    try {
      const ep = await api("POST", "/v1/webhook_endpoints", { key: m.keys.test, body: { url: r.url, enabled_events: ["payment.failed"] } });
      const e = await event("failed");
      await run(); // fails: the retry waits a minute
      const db = await getDb();
      const { webhookDeliveries } = await import("@/db/schema");
      const { and, eq } = await import("drizzle-orm");
      const rows = () => db.select().from(webhookDeliveries).where(and(eq(webhookDeliveries.eventId, e.id), eq(webhookDeliveries.endpointId, ep.body.id)));
      const [original] = await rows();
      // As after a few failures: the next retry is hours away.
      await db.update(webhookDeliveries).set({ nextAttemptAt: new Date(Date.now() + 2 * 3_600_000) }).where(eq(webhookDeliveries.id, original!.id));

      const window = { created_gte: e.createdAt.toISOString(), created_lt: new Date(e.createdAt.getTime() + 1).toISOString(), endpoint: ep.body.id, only_undelivered: true };
      for (let i = 0; i < 2; i++) {
        // Twice, as staff clicking again while the receiver is still down.
        const replay = await api("POST", "/v1/events/replay", { key: m.keys.test, body: window });
        expect(replay.body).toMatchObject({ events: 1, deliveries: 1 });
        const after = await rows();
        expect(after.map((d) => d.id)).toEqual([original!.id]);
        expect(after[0]!.nextAttemptAt!.getTime()).toBeLessThanOrEqual(Date.now());
      }
      const single = await api("POST", `/v1/events/${e.id}/replay`, { key: m.keys.test, body: { endpoint: ep.body.id } });
      expect(single.body.data.map((d: { id: string }) => d.id)).toEqual([original!.id]);
      expect(single.body.data[0]).toMatchObject({ status: "pending", reason: "event", attempt_count: 1 });

      // A worker holds it (its lease pushed the next attempt up to a minute ahead): left as it is.
      const leasedUntil = new Date(Date.now() + 30_000);
      await db.update(webhookDeliveries).set({ nextAttemptAt: leasedUntil }).where(eq(webhookDeliveries.id, original!.id));
      expect((await api("POST", "/v1/events/replay", { key: m.keys.test, body: window })).body).toMatchObject({ deliveries: 1 });
      expect((await rows()).map((d) => [d.id, d.nextAttemptAt!.getTime()])).toEqual([[original!.id, leasedUntil.getTime()]]);

      // Two replays at once (a double click) of a pair with nothing pending: one delivery between them.
      await db.update(webhookDeliveries).set({ status: "failed", nextAttemptAt: null }).where(eq(webhookDeliveries.id, original!.id));
      const both = await Promise.all([0, 1].map(() => api("POST", `/v1/events/${e.id}/replay`, { key: m.keys.test, body: { endpoint: ep.body.id } })));
      const queuedIds = both.map((b) => b.body.data.map((d: { id: string }) => d.id));
      expect(queuedIds[0]).toEqual(queuedIds[1]);
      expect((await rows()).filter((d) => d.status === "pending").map((d) => d.id)).toEqual(queuedIds[0]);
      await api("DELETE", `/v1/webhook_endpoints/${ep.body.id}`, { key: m.keys.test });
    } finally {
      await r.close();
    }
  });

  it("checks scopes: events:read reads, events:replay replays", async () => {
    const reader = await m.restrictedKey(["events:read"]);
    const replayer = await m.restrictedKey(["events:replay"]);
    const id = made[0]!.id;
    expect((await api("GET", `/v1/events/${id}`, { key: reader })).status).toBe(200);
    expectError(await api("POST", `/v1/events/${id}/replay`, { key: reader }), 403, "permission_error", "scope_missing");
    expectError(await api("POST", "/v1/events/replay", { key: reader, body: { created_gte: "2026-01-01T00:00:00Z", dry_run: true } }), 403, "permission_error", "scope_missing");
    expect((await api("POST", "/v1/events/replay", { key: replayer, body: { created_gte: "2026-01-01T00:00:00Z", dry_run: true } })).status).toBe(200);
    expectError(await api("GET", "/v1/events", { key: replayer }), 403, "permission_error", "scope_missing");
  });
});
