import { eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { getDb } from "@/db/client";
import { webhookEndpoints } from "@/db/schema";
import { newId } from "@/server/domain/ids";
import { createEndpoint } from "@/server/services/webhooks/create-endpoint";
import { seedTestMerchant, type TestMerchant } from "@/server/testing/fixtures";
import { dashboardAs, dashboardSignedOut, refusal, STAFF_TEST_PASSWORD } from "../testing";

let b: TestMerchant;
beforeAll(async () => {
  b = await seedTestMerchant();
});


const endpointOf = async (m: TestMerchant, livemode = false) =>
  createEndpoint(await m.ctx(livemode), { url: livemode ? "https://127.0.0.1:9/live" : "http://127.0.0.1:9/test", enabledEvents: ["*"] });

type Caller = Awaited<ReturnType<typeof dashboardAs>>;
/** Every procedure that names one endpoint, called on `id`. */
const byId = (c: Caller, id: string) => ({
  get: () => c.webhooks.get({ id }),
  deliveries: () => c.webhooks.deliveries({ endpointId: id }),
  update: () => c.webhooks.update({ id, description: "changed" }),
  rollSecret: () => c.webhooks.rollSecret({ id }),
  sendTest: () => c.webhooks.sendTest({ id }),
  delete: () => c.webhooks.delete({ id }),
});
const MUTATIONS = ["update", "rollSecret", "sendTest", "delete"] as const;

describe("dashboard: webhook endpoints", () => {
  it("lists the merchant's own endpoints of the chosen environment, with health and 24 h attempts", async () => {
    const m = await seedTestMerchant();
    const test = await endpointOf(m);
    const live = await endpointOf(m, true);
    await endpointOf(b);
    const since = new Date("2026-11-01T10:00:00Z");
    await (await getDb()).update(webhookEndpoints).set({ consecutiveFailures: 5, degradedSince: since }).where(eq(webhookEndpoints.id, test.id));
    const viewer = await dashboardAs(m, "viewer");
    const page = await viewer.webhooks.list({});
    expect(page.data.map((e) => e.id)).toEqual([test.id]);
    expect(page.data[0]).toMatchObject({ health: "degraded", degraded_since: since.toISOString(), consecutive_failures: 5, attempts24h: 0, failures24h: 0 });
    expect(page.data[0]).not.toHaveProperty("secret");
    expect(page.statsWindowHours).toBe(24);
    expect((await (await dashboardAs(m, "viewer", true)).webhooks.list({})).data.map((e) => e.id)).toEqual([live.id]);
    expect(await viewer.webhooks.get({ id: test.id })).toMatchObject({ id: test.id, health: "degraded" });
  });

  it("another merchant's, the other environment's and a made-up endpoint are all NOT_FOUND, for every procedure", async () => {
    const m = await seedTestMerchant();
    const theirs = await endpointOf(b);
    const otherEnv = await endpointOf(m, true);
    const admin = await dashboardAs(m, "admin");
    for (const id of [theirs.id, otherEnv.id, newId("webhookEndpoint", new Date())]) {
      for (const [name, call] of Object.entries(byId(admin, id))) expect([name, await refusal(call())]).toEqual([name, "NOT_FOUND"]);
    }
    // Nothing changed on theirs.
    const [row] = await (await getDb()).select().from(webhookEndpoints).where(eq(webhookEndpoints.id, theirs.id));
    expect(row).toMatchObject({ description: null, secret: theirs.secret, deletedAt: null });
  });

  it("viewers read but change nothing: every mutation is FORBIDDEN", async () => {
    const m = await seedTestMerchant();
    const mine = await endpointOf(m);
    const viewer = await dashboardAs(m, "viewer");
    expect((await viewer.webhooks.deliveries({ endpointId: mine.id })).data).toEqual([]);
    for (const name of MUTATIONS) expect([name, await refusal(byId(viewer, mine.id)[name]())]).toEqual([name, "FORBIDDEN"]);
    expect(await refusal(viewer.webhooks.create({ url: "http://127.0.0.1:9/x", enabledEvents: ["*"] }))).toBe("FORBIDDEN");
  });

  it("developers create (the secret once), edit, disable, roll, send a test, and delete", async () => {
    const m = await seedTestMerchant();
    const dev = await dashboardAs(m, "developer");
    const created = await dev.webhooks.create({ url: "http://127.0.0.1:9/new", enabledEvents: ["payment.succeeded", "payment.succeeded"], description: "orders" });
    expect(created).toMatchObject({ url: "http://127.0.0.1:9/new", enabled_events: ["payment.succeeded"], description: "orders" });
    expect(created.secret).toMatch(/^whsec_/);
    expect(await dev.webhooks.get({ id: created.id })).not.toHaveProperty("secret");
    // A live endpoint needs https: the service's own rule, as a BAD_REQUEST.
    expect(await refusal((await dashboardAs(m, "developer", true)).webhooks.create({ url: "http://127.0.0.1:9/x", enabledEvents: ["*"] }))).toBe("BAD_REQUEST");
    expect(await refusal(dev.webhooks.create({ url: "http://127.0.0.1:9/x", enabledEvents: ["webhook_endpoint.test"] as never }))).toBe("BAD_REQUEST");

    const edited = await dev.webhooks.update({ id: created.id, enabledEvents: ["*"], description: "" });
    expect(edited).toMatchObject({ enabled_events: ["*"], description: null });
    expect(await dev.webhooks.update({ id: created.id, disabled: true })).toMatchObject({ status: "disabled" });
    expect(await refusal(dev.webhooks.sendTest({ id: created.id }))).toBe("BAD_REQUEST");
    expect(await dev.webhooks.update({ id: created.id, disabled: false })).toMatchObject({ status: "enabled" });

    const rolled = await dev.webhooks.rollSecret({ id: created.id });
    expect(rolled.secret).toMatch(/^whsec_/);
    expect(rolled.secret).not.toBe(created.secret);
    expect(rolled.overlapHours).toBe(24);
    expect(rolled.previous_secret_expires_at).not.toBeNull();

    const sent = await dev.webhooks.sendTest({ id: created.id });
    const deliveries = await dev.webhooks.deliveries({ endpointId: created.id });
    expect(deliveries.data).toEqual([expect.objectContaining({ id: sent.deliveryId, event: sent.eventId, event_type: "webhook_endpoint.test" })]);

    expect(await dev.webhooks.delete({ id: created.id })).toEqual({ id: created.id });
    expect(await refusal(dev.webhooks.get({ id: created.id }))).toBe("NOT_FOUND");
    expect((await dev.webhooks.list({})).data).toEqual([]);
  });

  it("in live mode, saving an endpoint's URL needs the caller's password, as creating one does; switching it off does not", async () => {
    const m = await seedTestMerchant();
    const live = await dashboardAs(m, "developer", true);
    const endpoint = await endpointOf(m, true);
    const elsewhere = { id: endpoint.id, url: "https://127.0.0.1:9/elsewhere", enabledEvents: ["*" as const] };
    expect(await refusal(live.webhooks.update(elsewhere))).toBe("BAD_REQUEST");
    expect(await refusal(live.webhooks.update({ ...elsewhere, confirmPassword: "not the password" }))).toBe("BAD_REQUEST");
    const [unchanged] = await (await getDb()).select().from(webhookEndpoints).where(eq(webhookEndpoints.id, endpoint.id));
    expect(unchanged!.url).toBe("https://127.0.0.1:9/live");
    expect(await live.webhooks.update({ ...elsewhere, confirmPassword: STAFF_TEST_PASSWORD })).toMatchObject({ url: "https://127.0.0.1:9/elsewhere" });
    expect(await live.webhooks.update({ id: endpoint.id, disabled: true })).toMatchObject({ status: "disabled" });
    // Test mode asks for nothing.
    const test = await endpointOf(m);
    expect(await (await dashboardAs(m, "developer")).webhooks.update({ id: test.id, url: "http://127.0.0.1:9/other" })).toMatchObject({ url: "http://127.0.0.1:9/other" });
  });

  it("answers nothing to someone signed out", async () => {
    const mine = await endpointOf(b);
    const out = await dashboardSignedOut();
    expect(await refusal(out.webhooks.list({}))).toBe("UNAUTHORIZED");
    expect(await refusal(out.webhooks.create({ url: "http://127.0.0.1:9/x", enabledEvents: ["*"] }))).toBe("UNAUTHORIZED");
    for (const [name, call] of Object.entries(byId(out, mine.id))) expect([name, await refusal(call())]).toEqual([name, "UNAUTHORIZED"]);
  });
});
