import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { checkWebhookUrl, type Resolver } from "./address-guard";
import { describeError, WebhookPoster } from "./post-webhook";

const relaxed = { allowPrivateNetworks: true };
const strict = { allowPrivateNetworks: false };

type Receiver = { url: string; port: number; requests: number; connections: number; bodies: string[]; headers: http.IncomingHttpHeaders[] };

const servers: http.Server[] = [];
const posters: WebhookPoster[] = [];

afterEach(async () => {
  for (const poster of posters.splice(0)) poster.close();
  await Promise.all(
    servers.splice(0).map(
      (server) =>
        new Promise<void>((done) => {
          server.closeAllConnections();
          server.close(() => done());
        }),
    ),
  );
});

/** A local receiver on 127.0.0.1 that counts what reaches it. */
async function receiver(answer: (req: http.IncomingMessage, res: http.ServerResponse) => void): Promise<Receiver> {
  const seen: Receiver = { url: "", port: 0, requests: 0, connections: 0, bodies: [], headers: [] };
  const server = http.createServer((req, res) => {
    seen.requests += 1;
    seen.headers.push(req.headers);
    let body = "";
    req.setEncoding("utf8");
    req.on("data", (chunk: string) => (body += chunk));
    req.on("end", () => {
      seen.bodies.push(body);
      answer(req, res);
    });
  });
  server.on("connection", () => (seen.connections += 1));
  servers.push(server);
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
  seen.port = (server.address() as AddressInfo).port;
  seen.url = `http://127.0.0.1:${seen.port}/hook`;
  return seen;
}

function poster(opts: { policy?: { allowPrivateNetworks: boolean }; timeoutMs?: number; idleMs?: number; resolve?: Resolver } = {}) {
  const p = new WebhookPoster({ policy: relaxed, ...opts });
  posters.push(p);
  return p;
}

const payload = '{"id":"evt_1","type":"payment.succeeded"}';
const headers = { "Content-Type": "application/json", "Service-Signature": "t=1,v1=abc" };

describe("WebhookPoster", () => {
  it("delivers a POST and reports a 2xx as ok with latency and body", async () => {
    const target = await receiver((_req, res) => res.writeHead(200, { "Content-Type": "text/plain" }).end("thanks"));
    const result = await poster().post(target.url, payload, headers);

    expect(result).toEqual({ ok: true, statusCode: 200, latencyMs: expect.any(Number), error: null, responseBody: "thanks" });
    expect(result.latencyMs).toBeGreaterThan(0);
    expect(target.bodies).toEqual([payload]);
    expect(target.headers[0]).toMatchObject({
      "content-type": "application/json",
      "service-signature": "t=1,v1=abc",
      "content-length": String(Buffer.byteLength(payload)),
      "user-agent": "Mari-Webhooks/1.0",
    });
  });

  it("keeps a caller's User-Agent and counts Content-Length in bytes", async () => {
    const target = await receiver((_req, res) => res.writeHead(204).end());
    const body = '{"name":"Tatenda Moyo – café"}';
    const result = await poster().post(target.url, body, { "user-agent": "Custom/2", "Content-Length": "1" });

    expect(result).toMatchObject({ ok: true, statusCode: 204, responseBody: "" });
    expect(target.headers[0]).toMatchObject({ "user-agent": "Custom/2", "content-length": String(Buffer.byteLength(body)) });
    expect(target.bodies).toEqual([body]);
  });

  it("reports a 500 as a failure and keeps only the first 1024 bytes of the body", async () => {
    const target = await receiver((_req, res) => res.writeHead(500).end("x".repeat(5000)));
    const result = await poster().post(target.url, payload, headers);

    expect(result).toMatchObject({ ok: false, statusCode: 500, error: "HTTP 500" });
    expect(result.responseBody).toBe("x".repeat(1024));
  });

  it("stops reading a body that never ends once it has 1024 bytes, and hangs up", async () => {
    let hungUp!: Promise<void>;
    const target = await receiver((_req, res) => {
      hungUp = new Promise((done) => res.on("close", done));
      res.writeHead(200);
      res.write("y".repeat(2000));
    });
    const result = await poster({ timeoutMs: 2000 }).post(target.url, payload, headers);

    expect(result).toMatchObject({ ok: true, statusCode: 200, error: null, responseBody: "y".repeat(1024) });
    const tooLate = new Promise((done) => setTimeout(() => done("still open"), 1000));
    expect(await Promise.race([hungUp.then(() => "closed"), tooLate])).toBe("closed");
  });

  it("does not follow a redirect", async () => {
    const elsewhere = await receiver((_req, res) => res.writeHead(200).end("should not be reached"));
    const target = await receiver((_req, res) => res.writeHead(302, { Location: elsewhere.url }).end());
    const metadata = await receiver((_req, res) => res.writeHead(302, { Location: "http://169.254.169.254/latest/meta-data" }).end());
    const p = poster();

    expect(await p.post(target.url, payload, headers)).toMatchObject({
      ok: false,
      statusCode: 302,
      error: "HTTP 302 (redirects are not followed)",
    });
    expect(await p.post(metadata.url, payload, headers)).toMatchObject({ ok: false, statusCode: 302 });
    expect(target.requests).toBe(1);
    expect(elsewhere.requests).toBe(0);
    expect(elsewhere.connections).toBe(0);
  });

  it("times out a receiver that never answers", async () => {
    const target = await receiver(() => {});
    const result = await poster({ timeoutMs: 300 }).post(target.url, payload, headers);

    expect(result).toMatchObject({ ok: false, statusCode: null, error: "timed out after 300 ms" });
    expect(result.latencyMs).toBeGreaterThanOrEqual(290);
    expect(target.requests).toBe(1);
  });

  it("counts a 2xx that comes after the timeout as a failure: within 10 s means the answer, not just the status", async () => {
    const late = await receiver((_req, res) => void setTimeout(() => res.writeHead(200).end("ok"), 500));
    expect(await poster({ timeoutMs: 300 }).post(late.url, payload, headers)).toMatchObject({ ok: false, error: "timed out after 300 ms" });
    // The status in time but the body after it: the receiver did not finish answering in time either.
    const slowBody = await receiver((_req, res) => {
      res.writeHead(200, { "Content-Type": "text/plain" });
      res.write("o");
      setTimeout(() => res.end("k"), 500);
    });
    expect(await poster({ timeoutMs: 300 }).post(slowBody.url, payload, headers)).toMatchObject({ ok: false, error: "timed out after 300 ms" });
  });

  it("reports a refused connection as a failure", async () => {
    const closed = await receiver(() => {});
    const port = closed.port;
    await new Promise<void>((done) => servers.pop()!.close(() => done()));

    const result = await poster().post(`http://127.0.0.1:${port}/hook`, payload, headers);
    expect(result).toMatchObject({ ok: false, statusCode: null, error: expect.stringContaining("ECONNREFUSED") });
  });

  it("says in words why a receiver's TLS certificate was refused, after its code", () => {
    const refused = (code: string, message: string) => Object.assign(new Error(message), { code });
    expect(
      describeError(refused("ERR_TLS_CERT_ALTNAME_INVALID", "Hostname/IP does not match certificate's altnames: IP: 93.184.216.34 is not in the cert's list: ")),
    ).toBe("ERR_TLS_CERT_ALTNAME_INVALID: the TLS certificate is not for this host name");
    expect(describeError(refused("CERT_HAS_EXPIRED", "certificate has expired"))).toBe("CERT_HAS_EXPIRED: the TLS certificate has expired");
    // Other causes keep Node's message, which names the address.
    expect(describeError(refused("ECONNREFUSED", "connect ECONNREFUSED 127.0.0.1:9"))).toBe("connect ECONNREFUSED 127.0.0.1:9");
    expect(describeError(refused("EHOSTUNREACH", "no route"))).toBe("EHOSTUNREACH: no route");
  });

  it("reports every address tried when none accepts the connection", async () => {
    const closed = await receiver(() => {});
    const port = closed.port;
    await new Promise<void>((done) => servers.pop()!.close(() => done()));
    const resolve: Resolver = async () => [
      { address: "127.0.0.1", family: 4 },
      { address: "::1", family: 6 },
    ];

    const result = await poster({ resolve }).post(`http://dual.test:${port}/hook`, payload, headers);
    expect(result).toMatchObject({ ok: false, statusCode: null, error: expect.stringContaining(`ECONNREFUSED 127.0.0.1:${port}`) });
  });

  it("reuses one keep-alive connection for sequential posts", async () => {
    const target = await receiver((_req, res) => res.writeHead(200).end("ok"));
    const p = poster();

    expect((await p.post(target.url, payload, headers)).ok).toBe(true);
    expect((await p.post(target.url, payload, headers)).ok).toBe(true);
    expect(target.requests).toBe(2);
    expect(target.connections).toBe(1);
  });

  it("closes an idle connection itself before a receiver that closes its own after 5 s would", async () => {
    const target = await receiver((_req, res) => res.writeHead(200).end("ok"));
    const p = poster({ idleMs: 200 });
    expect((await p.post(target.url, payload, headers)).ok).toBe(true);
    await new Promise((r) => setTimeout(r, 500));
    expect((await p.post(target.url, payload, headers)).ok).toBe(true);
    expect(target.connections).toBe(2);
  });

  it("waits for a slow answer longer than the idle limit (that limit is for idle connections only)", async () => {
    const target = await receiver((_req, res) => setTimeout(() => res.writeHead(200).end("ok"), 600));
    const result = await poster({ idleMs: 200, timeoutMs: 5_000 }).post(target.url, payload, headers);
    expect(result).toMatchObject({ ok: true, statusCode: 200 });
    expect(target.requests).toBe(1);
  });

  it("sends once more on a new connection when the receiver closed the kept-alive one as the post went out", async () => {
    // The receiver drops every connection at its second request without answering, as a server
    // does when its keep-alive timeout closes the connection just as a request arrives on it.
    const perSocket = new WeakMap<object, number>();
    const target = await receiver((req, res) => {
      const n = (perSocket.get(req.socket) ?? 0) + 1;
      perSocket.set(req.socket, n);
      if (n === 2) req.socket.destroy();
      else res.writeHead(200).end("ok");
    });
    const p = poster();
    expect((await p.post(target.url, payload, headers)).ok).toBe(true);
    const second = await p.post(target.url, payload, headers);
    expect(second).toMatchObject({ ok: true, statusCode: 200 });
    expect(target.requests).toBe(3);
    expect(target.connections).toBe(2);
  });

  it("does not send again when a new connection fails, or after the receiver answered", async () => {
    const dropped = await receiver((req) => req.socket.destroy());
    const result = await poster().post(dropped.url, payload, headers);
    expect(result).toMatchObject({ ok: false, statusCode: null, error: expect.stringContaining("ECONNRESET") });
    expect(dropped.requests).toBe(1);

    const failing = await receiver((_req, res) => res.writeHead(503).end("busy"));
    const p = poster();
    await p.post(failing.url, payload, headers);
    expect((await p.post(failing.url, payload, headers)).statusCode).toBe(503);
    expect(failing.requests).toBe(2);
  });

  it("refuses IP-literal hosts the policy forbids without connecting", async () => {
    const target = await receiver((_req, res) => res.writeHead(200).end());
    const result = await poster({ policy: strict }).post(target.url, payload, headers);

    expect(result).toMatchObject({ ok: false, statusCode: null, error: "Webhook URLs must not point to a loopback address: 127.0.0.1." });
    expect(target.connections).toBe(0);
  });

  it("connects to the address its resolver gives", async () => {
    const target = await receiver((_req, res) => res.writeHead(200).end("via resolver"));
    const resolve: Resolver = async (hostname) => (hostname === "hooks.test" ? [{ address: "127.0.0.1", family: 4 }] : []);
    const result = await poster({ resolve }).post(`http://hooks.test:${target.port}/hook`, payload, headers);

    expect(result).toMatchObject({ ok: true, responseBody: "via resolver" });
    expect(target.headers[0]?.host).toBe(`hooks.test:${target.port}`);
  });

  it("refuses a host that resolves public when saved and private at delivery (DNS rebinding)", async () => {
    const target = await receiver((_req, res) => res.writeHead(200).end());
    let calls = 0;
    const rebinding: Resolver = async () => {
      calls += 1;
      return [{ address: calls === 1 ? "93.184.215.14" : "127.0.0.1", family: 4 }];
    };
    const url = `http://rebind.test:${target.port}/hook`;

    expect((await checkWebhookUrl(url, { livemode: false, policy: strict, resolve: rebinding })).ok).toBe(true);
    const result = await poster({ policy: strict, resolve: rebinding }).post(url, payload, headers);

    expect(result).toMatchObject({
      ok: false,
      statusCode: null,
      error: "Webhook URLs must not point to a loopback address: rebind.test resolves to 127.0.0.1.",
    });
    expect(calls).toBe(2);
    expect(target.connections).toBe(0);
  });

  it("never throws, even for unusable input", async () => {
    const p = poster();
    expect(await p.post("not a url", payload, headers)).toMatchObject({ ok: false, error: "invalid URL" });
    expect(await p.post("ftp://127.0.0.1/", payload, headers)).toMatchObject({ ok: false, error: "unsupported protocol ftp:" });
    const target = await receiver((_req, res) => res.writeHead(200).end());
    expect(await p.post(target.url, payload, { "X-Bad": "line\nbreak" })).toMatchObject({
      ok: false,
      error: expect.stringContaining("ERR_INVALID_CHAR"),
    });
    expect(target.requests).toBe(0);
  });
});
