import http from "node:http";
import type { AddressInfo } from "node:net";
import { expect, it, vi } from "vitest";
import type { WebhookPostResult } from "@/server/webhooks/post-webhook";
import { sharedWebhookPoster } from "./webhook-poster";

// Spec §6: a receiver acknowledges with a 2xx within 10 seconds. Both drivers (the local runner
// and the Inngest functions) deliver through this poster, so its timeout is the one receivers get.
it("gives a receiver 10 s to answer, and no longer", async () => {
  let arrived!: () => void;
  const reached = new Promise<void>((resolve) => (arrived = resolve));
  // A receiver that takes the request and never answers.
  const server = http.createServer(() => arrived());
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;

  vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
  try {
    let result: WebhookPostResult | undefined;
    const posting = sharedWebhookPoster()
      .post(url, "{}", { "Content-Type": "application/json" })
      .then((r) => (result = r));
    await reached;
    await vi.advanceTimersByTimeAsync(9_900);
    expect(result).toBeUndefined();
    await vi.advanceTimersByTimeAsync(100);
    await posting;
    expect(result).toMatchObject({ ok: false, statusCode: null, error: "timed out after 10000 ms" });
  } finally {
    vi.useRealTimers();
    sharedWebhookPoster().close();
    server.closeAllConnections();
    await new Promise<void>((done) => server.close(() => done()));
  }
});
