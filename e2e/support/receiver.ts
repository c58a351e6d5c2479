import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";

export type Got = { body: string; signature: string };

/** A webhook receiver on this machine answering every POST with `status`; what it got, in order. */
export async function receiver(status: number) {
  const got: Got[] = [];
  const server: Server = createServer((req, res) => {
    let body = "";
    req.setEncoding("utf8");
    req.on("data", (c: string) => (body += c));
    req.on("end", () => {
      got.push({ body, signature: String(req.headers["service-signature"] ?? "") });
      res.writeHead(status).end(status < 300 ? "thanks" : "down for maintenance");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhooks`, got, close: () => server.close() };
}
