import { TRPCClientError } from "@trpc/client";
import { count, eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { getDb } from "@/db/client";
import { eventReplays, webhookDeliveries } from "@/db/schema";
import { systemClock } from "@/server/clock";
import { newId } from "@/server/domain/ids";
import { transitionPayment } from "@/server/services/payments/transition-payment";
import { createEndpoint } from "@/server/services/webhooks/create-endpoint";
import { seedAwaitingPayment, seedEvents, seedTestMerchant, type TestMerchant } from "@/server/testing/fixtures";
import { dashboardAs, dashboardClient, dashboardSignedOut, refusal, staffContext, streamed } from "../testing";
import type { appRouter } from "./_app";

let a: TestMerchant;
let b: TestMerchant;
beforeAll(async () => {
  a = await seedTestMerchant();
  b = await seedTestMerchant();
});


/** A payment.succeeded event of `m` in that environment. */
async function succeededEvent(m: TestMerchant, livemode = false) {
  const p = await seedAwaitingPayment(m, { livemode });
  const { event } = await transitionPayment({ db: await getDb(), clock: systemClock }, { paymentId: p.id, to: "succeeded" });
  return event!;
}

const randomEventId = () => newId("event", new Date());

describe("dashboard: events", () => {
  it("lists and reads the merchant's own events in the chosen environment, filtered by type and time", async () => {
    const m = await seedTestMerchant();
    const test = await succeededEvent(m);
    const live = await succeededEvent(m, true);
    await succeededEvent(b);
    const viewer = await dashboardAs(m, "viewer");
    expect((await viewer.events.list({})).data.map((e) => e.id)).toEqual([test.id]);
    expect((await viewer.events.list({ types: ["payment.succeeded"] })).data.map((e) => e.id)).toEqual([test.id]);
    expect((await viewer.events.list({ types: ["payment.failed", "refund.failed"] })).data).toEqual([]);
    expect((await viewer.events.list({ createdGte: new Date(Date.now() + 60_000).toISOString() })).data).toEqual([]);
    expect((await viewer.events.list({ createdLt: new Date(Date.now() + 60_000).toISOString() })).data).toHaveLength(1);
    // Past the year 9999 by its offset: refused, as /v1 refuses it, not a 500.
    expect(await refusal(viewer.events.list({ createdGte: "9999-12-31T23:59:59-05:00" }))).toBe("BAD_REQUEST");
    const detail = await viewer.events.get({ id: test.id });
    expect(detail.event).toMatchObject({ id: test.id, object: "event", type: "payment.succeeded", data: { object: { object: "payment" } } });
    expect(detail.deliveries).toEqual([]);
    expect(await refusal(viewer.events.get({ id: live.id }))).toBe("NOT_FOUND");
    const liveViewer = await dashboardAs(m, "viewer", true);
    expect((await liveViewer.events.list({})).data.map((e) => e.id)).toEqual([live.id]);
    expect(await refusal(liveViewer.events.get({ id: test.id }))).toBe("NOT_FOUND");
  });

  it("never shows another merchant's event: the same answer as an id that does not exist", async () => {
    const theirs = await succeededEvent(b);
    const admin = await dashboardAs(a, "admin");
    expect(await refusal(admin.events.get({ id: theirs.id }))).toBe("NOT_FOUND");
    expect(await refusal(admin.events.get({ id: randomEventId() }))).toBe("NOT_FOUND");
    expect((await admin.events.list({ limit: 100 })).data.map((e) => e.id)).not.toContain(theirs.id);
    expect(await refusal(admin.events.replay({ id: theirs.id }))).toBe("NOT_FOUND");
  });

  it("replays one event to every endpoint or to one, for developers and admins; then the new delivery shows", async () => {
    const m = await seedTestMerchant();
    const ctx = await m.ctx();
    const one = await createEndpoint(ctx, { url: "http://127.0.0.1:9/one", enabledEvents: ["*"] });
    const two = await createEndpoint(ctx, { url: "http://127.0.0.1:9/two", enabledEvents: ["payment.succeeded"] });
    const event = await succeededEvent(m);
    const dev = await dashboardAs(m, "developer");
    const all = await dev.events.replay({ id: event.id });
    expect(all.deliveries.map((d) => d.endpoint).sort()).toEqual([one.id, two.id].sort());
    expect(all.deliveries.every((d) => d.reason === "replay" && d.status === "pending")).toBe(true);
    const admin = await dashboardAs(m, "admin");
    const named = await admin.events.replay({ id: event.id, endpointId: two.id });
    expect(named.deliveries.map((d) => d.endpoint)).toEqual([two.id]);
    const detail = await (await dashboardAs(m, "viewer")).events.get({ id: event.id });
    expect(detail.deliveries.map((d) => d.id)).toEqual(expect.arrayContaining([...all.deliveries, ...named.deliveries].map((d) => d.id)));
  });

  it("refuses replays to viewers, to another merchant's or environment's endpoint, and of another environment's event", async () => {
    const m = await seedTestMerchant();
    const event = await succeededEvent(m);
    const live = await succeededEvent(m, true);
    const theirEndpoint = await createEndpoint(await b.ctx(), { url: "http://127.0.0.1:9/theirs", enabledEvents: ["*"] });
    const liveEndpoint = await createEndpoint(await m.ctx(true), { url: "https://127.0.0.1:9/live", enabledEvents: ["*"] });
    const viewer = await dashboardAs(m, "viewer");
    expect(await refusal(viewer.events.replay({ id: event.id }))).toBe("FORBIDDEN");
    expect(await refusal(viewer.events.replayWindow({ createdGte: new Date(0).toISOString(), dryRun: true }))).toBe("FORBIDDEN");
    const dev = await dashboardAs(m, "developer");
    expect(await refusal(dev.events.replay({ id: event.id, endpointId: theirEndpoint.id }))).toBe("NOT_FOUND");
    expect(await refusal(dev.events.replay({ id: event.id, endpointId: liveEndpoint.id }))).toBe("NOT_FOUND");
    expect(await refusal(dev.events.replay({ id: live.id }))).toBe("NOT_FOUND");
    expect(await refusal(dev.events.replayWindow({ createdGte: new Date(0).toISOString(), endpointId: theirEndpoint.id, dryRun: true }))).toBe("NOT_FOUND");
  });

  it("replays a window: a dry run counts and queues nothing, then the same window queues exactly that", async () => {
    const m = await seedTestMerchant();
    const ctx = await m.ctx();
    await createEndpoint(ctx, { url: "http://127.0.0.1:9/one", enabledEvents: ["*"] });
    await createEndpoint(ctx, { url: "http://127.0.0.1:9/two", enabledEvents: ["payment.failed"] });
    const from = new Date(Date.now() - 1_000).toISOString();
    const first = await succeededEvent(m);
    await succeededEvent(m);
    await succeededEvent(m, true);
    await succeededEvent(b);
    const dev = await dashboardAs(m, "developer");
    const dry = (await streamed(dev.events.replayWindow({ createdGte: from, dryRun: true }))).result;
    // Without an end the window ends now, and the count says when: the form confirms that window.
    expect(dry).toEqual({ dryRun: true, events: 2, deliveries: 2, createdLt: expect.any(String) });
    expect((await dev.events.get({ id: first.id })).deliveries).toEqual([]);
    await succeededEvent(m); // after the count: not in what was counted, so not queued
    const done = (await streamed(dev.events.replayWindow({ createdGte: from, createdLt: dry.createdLt, dryRun: false }))).result;
    expect(done).toEqual({ dryRun: false, events: 2, deliveries: 2, createdLt: dry.createdLt });
    expect((await dev.events.get({ id: first.id })).deliveries).toHaveLength(1);
    expect((await streamed(dev.events.replayWindow({ createdGte: from, types: ["payment.failed"], dryRun: true }))).result).toMatchObject({ dryRun: true, events: 0, deliveries: 0 });
    expect(await refusal(dev.events.replayWindow({ createdGte: from, createdLt: from, dryRun: true }))).toBe("BAD_REQUEST");
  });

  it("streams a window's queueing over the page's own link: how far it has come, then what it queued", async () => {
    const m = await seedTestMerchant();
    await createEndpoint(await m.ctx(), { url: "http://127.0.0.1:9/stream", enabledEvents: ["*"] });
    const from = (await seedEvents(m, 1_200)).toISOString();
    const page = dashboardClient(await staffContext(m, "developer"));
    const { progress, result } = await streamed(page.events.replayWindow.mutate({ createdGte: from, dryRun: false }));
    expect(result).toMatchObject({ dryRun: false, events: 1_200, deliveries: 1_200 });
    // From nothing, batch by batch (500 events each); a report the page was too slow for is folded into the next.
    expect(progress[0]).toEqual({ events: 0, deliveries: 0 });
    expect(progress.at(-1)).toEqual({ events: 1_200, deliveries: 1_200 });
    for (const [i, p] of progress.entries()) {
      expect([0, 500, 1_000, 1_200]).toContain(p.events);
      expect(p.deliveries).toBe(p.events);
      if (i > 0) expect(p.events).toBeGreaterThan(progress[i - 1]!.events);
    }
    // Refused before it starts: answered as a plain call is.
    const refused = await page.events.replayWindow.mutate({ createdGte: from, endpointId: "we_00000000000000000000000000", dryRun: false }).then(
      () => null,
      (e: unknown) => e,
    );
    expect(refused).toBeInstanceOf(TRPCClientError);
    expect((refused as TRPCClientError<typeof appRouter>).data).toMatchObject({ code: "NOT_FOUND", httpStatus: 404, service: { code: "resource_missing", param: "endpoint" } });
  });

  it("goes on queueing a window when the page stops reading half-way (closed, or its connection lost)", async () => {
    const m = await seedTestMerchant();
    await createEndpoint(await m.ctx(), { url: "http://127.0.0.1:9/left", enabledEvents: ["*"] });
    const from = (await seedEvents(m, 1_500)).toISOString();
    const page = dashboardClient(await staffContext(m, "developer"));
    for await (const chunk of await page.events.replayWindow.mutate({ createdGte: from, dryRun: false })) {
      expect(chunk).toEqual({ done: false, progress: { events: 0, deliveries: 0 } });
      break;
    }
    const queued = async () =>
      (await (await getDb()).select({ n: count() }).from(webhookDeliveries).where(eq(webhookDeliveries.merchantId, m.merchant.id)))[0]!.n;
    await expect.poll(queued, { timeout: 30_000 }).toBe(1_500);
  });

  it("shows the latest window replays of the merchant's environment, newest first: how far each came, done or stopped and why", async () => {
    const m = await seedTestMerchant();
    const endpoint = await createEndpoint(await m.ctx(), { url: "http://127.0.0.1:9/latest", enabledEvents: ["*"] });
    const from = (await seedEvents(m, 3)).toISOString();
    const dev = await dashboardAs(m, "developer");
    const viewer = await dashboardAs(m, "viewer");
    expect(await viewer.events.replays()).toEqual([]);
    await streamed(dev.events.replayWindow({ createdGte: from, dryRun: true }));
    // A dry run keeps nothing.
    expect(await viewer.events.replays()).toEqual([]);
    const all = (await streamed(dev.events.replayWindow({ createdGte: from, dryRun: false }))).result;
    await streamed(dev.events.replayWindow({ createdGte: from, createdLt: all.createdLt, types: ["payment.failed"], endpointId: endpoint.id, onlyUndelivered: true, dryRun: false }));
    const [typed, first] = await viewer.events.replays();
    expect(typed).toMatchObject({ createdGte: from, createdLt: all.createdLt, types: ["payment.failed"], endpointId: endpoint.id, onlyUndelivered: true, events: 0, deliveries: 0, status: "done", error: null });
    expect(first).toMatchObject({ createdGte: from, types: null, endpointId: null, onlyUndelivered: false, events: 3, deliveries: 3, status: "done", error: null });
    expect(first!.finishedAt).not.toBeNull();
    // Of the last day only.
    const dayAgo = new Date(Date.now() - 25 * 3600_000);
    await (await getDb()).insert(eventReplays).values({ id: newId("eventReplay", dayAgo), merchantId: m.merchant.id, livemode: false, createdGte: dayAgo, createdLt: dayAgo, onlyUndelivered: false, status: "done", createdAt: dayAgo });
    expect(await viewer.events.replays()).toHaveLength(2);
    // Another merchant's, and the other environment's, are not there.
    expect(await (await dashboardAs(b, "viewer")).events.replays()).toEqual([]);
    expect(await (await dashboardAs(m, "viewer", true)).events.replays()).toEqual([]);
  });

  it("answers nothing to someone signed out", async () => {
    const out = await dashboardSignedOut();
    const event = await succeededEvent(a);
    expect(await refusal(out.events.list({}))).toBe("UNAUTHORIZED");
    expect(await refusal(out.events.get({ id: event.id }))).toBe("UNAUTHORIZED");
    expect(await refusal(out.events.replay({ id: event.id }))).toBe("UNAUTHORIZED");
    expect(await refusal(out.events.replayWindow({ createdGte: new Date(0).toISOString(), dryRun: true }))).toBe("UNAUTHORIZED");
  });
});
