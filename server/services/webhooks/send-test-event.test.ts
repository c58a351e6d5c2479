import { eq, sql } from "drizzle-orm";
import { afterAll, describe, expect, it } from "vitest";
import { getDb } from "@/db/client";
import { rowsOf } from "@/db/rows";
import { outbox, webhookDeliveries } from "@/db/schema";
import { manualClock } from "@/server/clock";
import { isServiceError } from "@/server/domain/errors";
import { NOT_SENT } from "@/server/domain/webhooks";
import { verifySignatureHeader } from "@/server/domain/signatures";
import { LocalRunner } from "@/server/jobs/local-runner";
import { providers } from "@/server/providers/registry";
import { seedTestMerchant } from "@/server/testing/fixtures";
import { startReceiver, testPoster } from "@/server/testing/webhooks";
import { replayEvent } from "../events/replay-event";
import { replayEventWindow } from "../events/replay-event-window";
import { recordAttempts } from "./attempt-delivery";
import { createEndpoint } from "./create-endpoint";
import { endpointAttemptStats } from "./endpoint-attempt-stats";
import { listDeliveries } from "./list-deliveries";
import { sendTestEvent } from "./send-test-event";
import { updateEndpoint } from "./update-endpoint";

const poster = testPoster();
const closers: (() => Promise<void>)[] = [];
afterAll(async () => {
  poster.close();
  await Promise.all(closers.map((c) => c()));
});
async function receiver(respond?: Parameters<typeof startReceiver>[0]) {
  const r = await startReceiver(respond);
  closers.push(r.close);
  return r;
}

async function expectServiceError(p: Promise<unknown>, code: string) {
  const e = await p.then(
    () => null,
    (err: unknown) => err,
  );
  expect(isServiceError(e) && e.code).toBe(code);
}

async function world() {
  const m = await seedTestMerchant();
  const db = await getDb();
  const clock = manualClock("2026-04-01T08:00:00Z");
  const runner = new LocalRunner({ db, clock, providers, webhooks: poster, merchantId: m.merchant.id });
  const run = async () => {
    await runner.tick();
    await runner.settled();
  };
  return { m, db, clock, run, ctx: (livemode = false) => m.ctx(livemode, clock) };
}

describe("sendTestEvent", () => {
  it("reaches only the endpoint it was sent to, signed, and shows in that endpoint's deliveries", async () => {
    const w = await world();
    const target = await receiver();
    const other = await receiver();
    const ctx = await w.ctx();
    const endpoint = await createEndpoint(ctx, { url: target.url, enabledEvents: ["*"] });
    await createEndpoint(ctx, { url: other.url, enabledEvents: ["*"] });

    const { event, delivery } = await sendTestEvent(ctx, endpoint.id);
    expect(event).toMatchObject({ type: "webhook_endpoint.test", objectId: endpoint.id, livemode: false });
    // No outbox row: the fan-out never sees a test event.
    const pending = await w.db.select().from(outbox);
    expect(pending.filter((o) => (o.payload as { event_id?: string }).event_id === event.id)).toEqual([]);
    await w.run();

    expect(other.received).toHaveLength(0);
    expect(target.received).toHaveLength(1);
    const got = target.received[0]!;
    const body = JSON.parse(got.body);
    expect(body).toMatchObject({ id: event.id, object: "event", type: "webhook_endpoint.test", data: { object: { id: endpoint.id, object: "webhook_endpoint" } } });
    expect(got.body).not.toContain(endpoint.secret);
    expect(verifySignatureHeader(got.headers["service-signature"] as string, got.body, [endpoint.secret], w.clock.now())).toBe(true);

    const page = await listDeliveries(ctx, { endpointId: endpoint.id }, { limit: 10 });
    expect(page.data.map((d) => d.id)).toEqual([delivery.id]);
    expect(page.data[0]).toMatchObject({ status: "delivered", eventType: "webhook_endpoint.test", attempts: [{ statusCode: 200 }] });
  });

  it("a replay of a test event goes back to its own endpoint, or to one named for that event; a window's replay sends it nowhere else", async () => {
    const w = await world();
    const ctx = await w.ctx();
    const a = await createEndpoint(ctx, { url: "http://127.0.0.1:9/a", enabledEvents: ["*"] });
    const b = await createEndpoint(ctx, { url: "http://127.0.0.1:9/b", enabledEvents: ["*"] });
    const { event } = await sendTestEvent(ctx, a.id);
    expect((await replayEvent(ctx, event.id)).deliveries.map((d) => d.endpointId)).toEqual([a.id]);
    expect((await replayEvent(ctx, event.id, a.id)).deliveries.map((d) => d.endpointId)).toEqual([a.id]);
    expect((await replayEvent(ctx, event.id, b.id)).deliveries.map((d) => d.endpointId)).toEqual([b.id]);

    // A window: the ping goes to a, whether a is named or every endpoint is replayed to; naming b
    // sends b the window's other events, not a's ping (which shows a's URL and description).
    const window = { createdGte: new Date(w.clock.now().getTime() - 1000), createdLt: new Date(w.clock.now().getTime() + 1000) };
    const queued = async (input: Parameters<typeof replayEventWindow>[1]) => {
      // Delivered, as if the runner had sent them: a pending one would be brought forward, not added.
      await w.db.update(webhookDeliveries).set({ status: "delivered", nextAttemptAt: null }).where(eq(webhookDeliveries.eventId, event.id));
      const before = await w.db.select().from(webhookDeliveries).where(eq(webhookDeliveries.eventId, event.id));
      const { events: eventCount, deliveries } = await replayEventWindow(ctx, input);
      const counts = { events: eventCount, deliveries };
      const after = await w.db.select().from(webhookDeliveries).where(eq(webhookDeliveries.eventId, event.id));
      return { counts, to: after.filter((d) => !before.some((x) => x.id === d.id)).map((d) => d.endpointId) };
    };
    expect(await queued(window)).toEqual({ counts: { events: 1, deliveries: 1 }, to: [a.id] });
    expect(await queued({ ...window, endpointId: a.id })).toEqual({ counts: { events: 1, deliveries: 1 }, to: [a.id] });
    expect(await queued({ ...window, endpointId: b.id })).toEqual({ counts: { events: 1, deliveries: 0 }, to: [] });
  });

  it("refuses a disabled endpoint, and another merchant's or environment's endpoint is missing", async () => {
    const w = await world();
    const ctx = await w.ctx();
    const endpoint = await createEndpoint(ctx, { url: "http://127.0.0.1:9/x", enabledEvents: ["*"] });
    await updateEndpoint(ctx, endpoint.id, { disabled: true });
    await expectServiceError(sendTestEvent(ctx, endpoint.id), "parameter_invalid");
    const stranger = await seedTestMerchant();
    await expectServiceError(sendTestEvent(await stranger.ctx(), endpoint.id), "resource_missing");
    await expectServiceError(sendTestEvent(await w.ctx(true), endpoint.id), "resource_missing");
    const rows = await w.db.select().from(webhookDeliveries).where(eq(webhookDeliveries.endpointId, endpoint.id));
    expect(rows).toEqual([]);
  });
});

describe("endpointAttemptStats", () => {
  it("counts attempts and failures per endpoint over the last 24 h, in one call for all", async () => {
    const w = await world();
    const ctx = await w.ctx();
    const t = w.clock.now().getTime();
    const flaky = await createEndpoint(ctx, { url: "http://127.0.0.1:9/flaky", enabledEvents: ["*"] });
    const fine = await createEndpoint(ctx, { url: "http://127.0.0.1:9/fine", enabledEvents: ["*"] });
    const quiet = await createEndpoint(ctx, { url: "http://127.0.0.1:9/quiet", enabledEvents: ["*"] });
    // Old attempts (two days ago) fall outside the window.
    w.clock.set(new Date(t - 48 * 3600_000));
    await sendTestEvent(ctx, flaky.id);
    await attemptAll(w, flaky.id, [500]);
    w.clock.set(new Date(t));
    for (let i = 0; i < 3; i++) await sendTestEvent(ctx, flaky.id);
    await attemptAll(w, flaky.id, [200, 503, null]);
    await sendTestEvent(ctx, fine.id);
    await attemptAll(w, fine.id, [204]);
    // A delivery to a disabled endpoint records a "not sent" attempt: not the receiver's failure.
    await sendTestEvent(ctx, fine.id);
    await updateEndpoint(ctx, fine.id, { disabled: true });
    await w.run();
    const stranger = await seedTestMerchant();
    const theirs = await createEndpoint(await stranger.ctx(false, w.clock), { url: "http://127.0.0.1:9/theirs", enabledEvents: ["*"] });
    await sendTestEvent(await stranger.ctx(false, w.clock), theirs.id);
    await attemptAll(w, theirs.id, [500]);

    const stats = await endpointAttemptStats(ctx, [flaky.id, fine.id, quiet.id, theirs.id]);
    expect(stats.get(flaky.id)).toMatchObject({ attempts: 3, failures: 2 });
    expect(stats.get(fine.id)).toMatchObject({ attempts: 1, failures: 0 });
    expect(stats.get(quiet.id)).toEqual({ attempts: 0, failures: 0, lastAttemptAt: null, lastFailure: null });
    expect(stats.get(fine.id)!.lastFailure).toBeNull();
    // Another merchant's endpoint counts nothing here, even named.
    expect(stats.get(theirs.id)).toMatchObject({ attempts: 0, failures: 0 });
    expect(stats.get(flaky.id)!.lastAttemptAt).toEqual(new Date(t));

    // What the latest failure got, for the degraded banner: a status, or the error when none came.
    w.clock.set(new Date(t + 1_000));
    await sendTestEvent(ctx, flaky.id);
    await attemptAll(w, flaky.id, [null]);
    expect((await endpointAttemptStats(ctx, [flaky.id])).get(flaky.id)!.lastFailure).toBe("ECONNREFUSED");
    w.clock.set(new Date(t + 2_000));
    await sendTestEvent(ctx, flaky.id);
    await attemptAll(w, flaky.id, [502]);
    expect((await endpointAttemptStats(ctx, [flaky.id])).get(flaky.id)!.lastFailure).toBe("HTTP 502");
  });

  it("reads attempts through indexes that leave out exactly the attempts recorded as not sent", async () => {
    // The indexes' predicates are written out in their migration; the stats' query must say the
    // same for the planner to use them, and all must name the prefix attempts are recorded with.
    const db = await getDb();
    const indexes = rowsOf<{ indexname: string; indexdef: string }>(
      await db.execute(sql`select indexname, indexdef from pg_indexes where indexname like 'webhook_attempts_endpoint%' order by indexname`),
    );
    expect(indexes.map((i) => i.indexname)).toEqual(["webhook_attempts_endpoint_failed_idx", "webhook_attempts_endpoint_idx"]);
    for (const i of indexes) expect(i.indexdef).toContain(`'${NOT_SENT}%'`);
    expect(indexes[1]!.indexdef).toMatch(/\(endpoint_id, attempted_at\) INCLUDE \(status_code\)/);
  });
});

/** Records one attempt with the given status (null: no answer) for each pending delivery of the endpoint, oldest first. */
async function attemptAll(w: Awaited<ReturnType<typeof world>>, endpointId: string, codes: (number | null)[]) {
  const pending = (await w.db.select().from(webhookDeliveries).where(eq(webhookDeliveries.endpointId, endpointId)))
    .filter((d) => d.status === "pending" && d.attemptCount === 0)
    .sort((x, y) => x.id.localeCompare(y.id));
  expect(pending).toHaveLength(codes.length);
  const at = w.clock.now();
  await recordAttempts(
    { db: w.db, clock: w.clock },
    pending.map((d, i) => {
      const code = codes[i]!;
      const ok = code !== null && code >= 200 && code < 300;
      return {
        delivery: d,
        endpointId,
        attemptedAt: at,
        post: { ok, statusCode: code, latencyMs: 5, error: ok ? null : code === null ? "ECONNREFUSED" : `HTTP ${code}`, responseBody: "" },
        counts: true,
        status: ok ? ("delivered" as const) : ("failed" as const),
        retryAt: null,
      };
    }),
  );
}
