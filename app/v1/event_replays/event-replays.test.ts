import { eq } from "drizzle-orm";
import { afterAll, describe, expect, it, vi } from "vitest";
import { getDb } from "@/db/client";
import { webhookDeliveries } from "@/db/schema";
import { systemClock } from "@/server/clock";
import { LocalRunner } from "@/server/jobs/local-runner";
import { providers } from "@/server/providers/registry";
import { api } from "@/server/testing/api";
import { expectError } from "@/server/testing/expect-error";
import { seedEvents, seedTestMerchant } from "@/server/testing/fixtures";
import { startReceiver, testPoster } from "@/server/testing/webhooks";

// The request answers as soon as its first batch is queued, as a window too long for the request's
// time would be answered: the path a day's window takes, with a few hundred events.
vi.mock("@/server/domain/webhooks", async (real) => ({ ...(await real<typeof import("@/server/domain/webhooks")>()), REPLAY_ANSWER_WITHIN_MS: 0 }));

const poster = testPoster();
const closers: (() => Promise<void>)[] = [];
afterAll(async () => {
  poster.close();
  await Promise.all(closers.map((c) => c()));
});

describe("POST /v1/events/replay of a window longer than the request's time, followed with GET /v1/event_replays", () => {
  it("is answered running, carried on by the job runner, and read as it goes until done", async () => {
    const m = await seedTestMerchant();
    const r = await startReceiver(() => 200);
    closers.push(r.close);
    const endpoint = await api("POST", "/v1/webhook_endpoints", { key: m.keys.test, body: { url: r.url, enabled_events: ["payment.succeeded"] } });
    const createdGte = (await seedEvents(m, 1_100)).toISOString();

    const asked = await api("POST", "/v1/events/replay", { key: m.keys.test, idempotencyKey: "long-window", body: { created_gte: createdGte, endpoint: endpoint.body.id } });
    expect(asked.status).toBe(200);
    expect(asked.body).toMatchObject({ object: "event_replay", dry_run: false, status: "running", events: 500, deliveries: 500, endpoint: endpoint.body.id, finished_at: null });
    const id: string = asked.body.id;
    expect((await api("GET", `/v1/event_replays/${id}`, { key: m.keys.test })).body).toEqual(asked.body);
    // The same key answers the same: the replay's progress is read with GET.
    const again = await api("POST", "/v1/events/replay", { key: m.keys.test, idempotencyKey: "long-window", body: { created_gte: createdGte, endpoint: endpoint.body.id } });
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(again.body).toEqual(asked.body);

    const runner = new LocalRunner({ db: await getDb(), clock: systemClock, providers, webhooks: poster, merchantId: m.merchant.id });
    await runner.tick();
    await runner.settled();
    const done = await api("GET", `/v1/event_replays/${id}`, { key: m.keys.test });
    expect(done.body).toMatchObject({ id, status: "done", events: 1_100, deliveries: 1_100, error: null, finished_at: expect.any(String) });
    const queued = await (await getDb()).select({ eventId: webhookDeliveries.eventId }).from(webhookDeliveries).where(eq(webhookDeliveries.endpointId, endpoint.body.id));
    expect(new Set(queued.map((d) => d.eventId)).size).toBe(1_100);
    expect(queued).toHaveLength(1_100);

    // Listed newest first, on cursors both ways.
    const other = await api("POST", "/v1/events/replay", { key: m.keys.test, body: { created_gte: createdGte, types: ["refund.failed"] } });
    expect(other.body).toMatchObject({ status: "done", events: 0 });
    const first = await api("GET", "/v1/event_replays?limit=1", { key: m.keys.test });
    expect(first.body).toMatchObject({ object: "list", has_more: true, data: [{ id: other.body.id }] });
    const next = await api("GET", `/v1/event_replays?limit=1&starting_after=${other.body.id}`, { key: m.keys.test });
    expect(next.body).toMatchObject({ has_more: false, data: [{ id }] });
    const back = await api("GET", `/v1/event_replays?ending_before=${id}`, { key: m.keys.test });
    expect(back.body.data.map((x: { id: string }) => x.id)).toEqual([other.body.id]);

    // The live environment has none of them.
    expect((await api("GET", "/v1/event_replays", { key: m.keys.live })).body.data).toEqual([]);
    expectError(await api("GET", `/v1/event_replays/${id}`, { key: m.keys.live }), 404, "not_found", "resource_missing", "id");
    expectError(await api("GET", "/v1/event_replays/evt_nope", { key: m.keys.test }), 404, "not_found", "resource_missing", "id");
    expectError(await api("GET", "/v1/event_replays?limit=0", { key: m.keys.test }), 400, "invalid_request", "parameter_invalid", "limit");
  });
});
