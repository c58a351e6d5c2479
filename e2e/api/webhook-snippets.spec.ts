import { spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { expect, test } from "@playwright/test";
import { signatureHeader } from "../../server/domain/signatures";
import { installed, readmeCodeBlocks } from "../../server/testing/readme-blocks";
import { bearer, seed } from "../support/seed";

/**
 * The README's PHP endpoint (its two blocks, as they stand there) served by `php -S` as a real
 * webhook endpoint of the production server: a payment's outcome is delivered to it and answered
 * 204, and a post that the server did not sign is refused with 400. CI installs php-cli; a local
 * run without PHP skips this, saying why.
 */
test.skip(!installed("php") && !process.env.CI, "needs PHP (php-cli) to serve the README's endpoint");

async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

test("the README's PHP endpoint takes a delivered webhook and refuses a forged one", async ({ request }) => {
  const blocks = readmeCodeBlocks("### Verifying a webhook", "php");
  const fn = blocks.find((b) => b.includes("function mari_verify_signature"));
  const endpointCode = blocks.find((b) => b.includes("require __DIR__ . '/mari-signature.php'"));
  expect(fn && endpointCode, "the README has both PHP blocks").toBeTruthy();
  const dir = mkdtempSync(path.join(tmpdir(), "mari-php-endpoint-"));
  writeFileSync(path.join(dir, "mari-signature.php"), fn!);
  writeFileSync(path.join(dir, "webhook.php"), endpointCode!);

  const key = seed().keys.test;
  const port = await freePort();
  const url = `http://127.0.0.1:${port}/webhook.php`;
  const created = await request.post("/v1/webhook_endpoints", { headers: bearer(key), data: { url, enabled_events: ["payment.succeeded"] } });
  expect(created.status(), await created.text()).toBe(201);
  const { id: endpointId, secret } = (await created.json()) as { id: string; secret: string };

  const php = spawn("php", ["-S", `127.0.0.1:${port}`, "-t", dir], { env: { ...process.env, MARI_WEBHOOK_SECRET: secret }, stdio: "ignore" });
  try {
    // Up once it answers: a GET carries no signature, so the endpoint refuses it.
    await expect
      .poll(async () => (await fetch(url).catch(() => null))?.status ?? 0, { timeout: 15_000 })
      .toBe(400);

    const payment = await request.post("/v1/payments", {
      headers: { ...bearer(key), "Idempotency-Key": randomUUID() },
      data: { amount: 4_200, currency: "USD", method: "wallet", reference: `e2e-php-${randomUUID()}`, customer: { msisdn: "0771234567" }, metadata: { shop: "Chipo’s café" } },
    });
    expect(payment.status()).toBe(201);
    const paymentId = ((await payment.json()) as { id: string }).id;

    // The outcome's delivery to this endpoint: delivered, its one attempt answered 204 by the README's code.
    type Delivery = { status: string; attempts: { status_code: number | null }[] };
    const delivery = async () => {
      const events = (await (await request.get(`/v1/events?type=payment.succeeded&limit=100`, { headers: bearer(key) })).json()) as {
        data: { id: string; data: { object: { id: string } } }[];
      };
      const event = events.data.find((e) => e.data.object.id === paymentId);
      if (!event) return undefined;
      const log = await request.get(`/v1/webhook_deliveries?event=${event.id}&endpoint=${endpointId}`, { headers: bearer(key) });
      return ((await log.json()) as { data: Delivery[] }).data[0];
    };
    await expect.poll(async () => (await delivery())?.status, { timeout: 30_000 }).toBe("delivered");
    expect((await delivery())!.attempts.map((a) => a.status_code)).toEqual([204]);

    // Posts the server did not sign as they stand: another secret, a changed body, a stale timestamp.
    const body = JSON.stringify({ id: "evt_forged", type: "payment.succeeded", data: { object: { id: paymentId, status: "succeeded" } } });
    const now = Math.floor(Date.now() / 1000);
    const post = (signature: string, raw = body) => fetch(url, { method: "POST", headers: { "content-type": "application/json", "service-signature": signature }, body: raw });
    expect((await post(signatureHeader(["whsec_not_the_endpoints"], now, body))).status).toBe(400);
    expect((await post(signatureHeader([secret], now, body), body.replace("evt_forged", "evt_forgee"))).status).toBe(400);
    expect((await post(signatureHeader([secret], now - 301, body))).status).toBe(400);
    // The same post signed with the endpoint's secret passes: what was refused was the signature.
    expect((await post(signatureHeader([secret], now, body))).status).toBe(204);
  } finally {
    php.kill();
    await request.delete(`/v1/webhook_endpoints/${endpointId}`, { headers: bearer(key) });
    rmSync(dir, { recursive: true, force: true });
  }
});
