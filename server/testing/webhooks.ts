import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { getDb } from "@/db/client";
import { recordEvents } from "@/server/services/events/record-event";
import { WebhookPoster } from "@/server/webhooks/post-webhook";

/** A poster for tests: real HTTP, private addresses allowed (receivers listen on 127.0.0.1). */
export function testPoster(timeoutMs = 2_000): WebhookPoster {
  return new WebhookPoster({ policy: { allowPrivateNetworks: true }, timeoutMs });
}

export type Received = { body: string; headers: IncomingHttpHeaders; path: string; at: number };

/**
 * A real HTTP receiver on 127.0.0.1. `respond` picks the status for each request (200 by default);
 * every request is kept, raw body included, so tests verify signatures over the bytes received.
 */
export async function startReceiver(respond: (req: Received, n: number) => number | Promise<number> = () => 200) {
  const received: Received[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const r: Received = { body: Buffer.concat(chunks).toString("utf8"), headers: req.headers, path: req.url ?? "/", at: Date.now() };
      received.push(r);
      void Promise.resolve(respond(r, received.length)).then((status) => {
        res.writeHead(status, { "content-type": "text/plain" });
        res.end(status < 300 ? "ok" : `nope ${status}`);
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    received,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

export type Receiver = Awaited<ReturnType<typeof startReceiver>>;

/** Commits `n` events of `type` for a merchant's test mode in one transaction, as a burst of payments reaching an outcome would. */
export async function commitEvents(merchantId: string, n: number, type: "payment.succeeded" | "payment.failed" = "payment.succeeded") {
  const db = await getDb();
  return db.transaction((tx) =>
    recordEvents(
      tx,
      Array.from({ length: n }, (_, i) => ({
        merchantId,
        livemode: false,
        type,
        objectId: `pay_${i}_${Math.random().toString(36).slice(2)}`,
        object: { i },
        at: new Date(),
      })),
    ),
  );
}
