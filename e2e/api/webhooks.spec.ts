import { randomUUID } from "node:crypto";
import { expect, test } from "@playwright/test";
import { verifySignatureHeader } from "../../server/domain/signatures";
import { receiver } from "../support/receiver";
import { bearer, seed } from "../support/seed";

/**
 * Webhooks on the production server, as a merchant sees them: a real receiver on this machine,
 * the sandbox's outcome arriving as a signed POST, the delivery log, a replay, and a failing
 * receiver scheduled for its first retry a minute later.
 */
test("a payment's outcome arrives signed; the log shows it; a replay sends it again; a failing receiver is retried", async ({ request }) => {
  const key = seed().keys.test;
  const ok = await receiver(200);
  const down = await receiver(503);
  try {
    const endpoint = await request.post("/v1/webhook_endpoints", { headers: bearer(key), data: { url: ok.url, enabled_events: ["payment.succeeded"] } });
    expect(endpoint.status(), await endpoint.text()).toBe(201);
    const { id: endpointId, secret } = (await endpoint.json()) as { id: string; secret: string };
    const failing = await request.post("/v1/webhook_endpoints", { headers: bearer(key), data: { url: down.url, enabled_events: ["*"] } });
    const failingId = ((await failing.json()) as { id: string }).id;

    const created = await request.post("/v1/payments", {
      headers: { ...bearer(key), "Idempotency-Key": randomUUID() },
      data: { amount: 1_250, currency: "USD", method: "wallet", reference: `e2e-wh-${randomUUID()}`, customer: { msisdn: "0770000001" }, metadata: { order: "A-17" } },
    });
    expect(created.status()).toBe(201);
    const payment = (await created.json()) as { id: string };

    const mine = () => ok.got.filter((g) => (JSON.parse(g.body) as { data: { object: { id: string } } }).data.object.id === payment.id);
    await expect.poll(() => mine().length, { timeout: 20_000 }).toBe(1);
    const first = mine()[0]!;
    expect(verifySignatureHeader(first.signature, first.body, [secret], new Date())).toBe(true);
    const event = JSON.parse(first.body) as { id: string; type: string; data: { object: { status: string; metadata: Record<string, string> } } };
    expect(event).toMatchObject({ type: "payment.succeeded", data: { object: { status: "succeeded", metadata: { order: "A-17" } } } });

    // The receiver has the body before its answer reaches the server, which records the attempt after it.
    const logged = async () => {
      const log = await request.get(`/v1/webhook_deliveries?event=${event.id}&endpoint=${endpointId}`, { headers: bearer(key) });
      return ((await log.json()) as { data: { status: string; attempts: { status_code: number }[] }[] }).data;
    };
    await expect.poll(async () => (await logged())[0]?.status, { timeout: 10_000 }).toBe("delivered");
    const deliveries = await logged();
    expect(deliveries).toHaveLength(1);
    expect(deliveries[0]).toMatchObject({ status: "delivered", attempts: [{ status_code: 200 }] });

    const replay = await request.post(`/v1/events/${event.id}/replay`, { headers: bearer(key), data: { endpoint: endpointId } });
    expect(replay.status()).toBe(200);
    await expect.poll(() => mine().length, { timeout: 20_000 }).toBe(2);
    expect(verifySignatureHeader(mine()[1]!.signature, mine()[1]!.body, [secret], new Date())).toBe(true);
    expect(JSON.parse(mine()[1]!.body).id).toBe(event.id);

    // The failing receiver got its first attempt; the next one is a minute later.
    await expect
      .poll(async () => {
        const res = await request.get(`/v1/webhook_deliveries?event=${event.id}&endpoint=${failingId}`, { headers: bearer(key) });
        return ((await res.json()) as { data: { attempt_count: number }[] }).data[0]?.attempt_count ?? 0;
      })
      .toBe(1);
    const pending = ((await (await request.get(`/v1/webhook_deliveries?event=${event.id}&endpoint=${failingId}`, { headers: bearer(key) })).json()) as {
      data: { status: string; next_attempt_at: string; attempts: { attempted_at: string; status_code: number; response_body: string }[] }[];
    }).data[0]!;
    expect(pending).toMatchObject({ status: "pending", attempts: [{ status_code: 503, response_body: "down for maintenance" }] });
    const gap = new Date(pending.next_attempt_at).getTime() - new Date(pending.attempts[0]!.attempted_at).getTime();
    expect(gap).toBe(60_000);

    // Tidy: later specs share this merchant.
    for (const id of [endpointId, failingId]) await request.delete(`/v1/webhook_endpoints/${id}`, { headers: bearer(key) });
  } finally {
    ok.close();
    down.close();
  }
});
