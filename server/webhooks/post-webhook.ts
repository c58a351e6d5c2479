import http from "node:http";
import https from "node:https";
import { isIP } from "node:net";
import { addressRefusal, guardedLookup, refusalSentence, type AddressPolicy, type Resolver } from "./address-guard";

export type WebhookPostResult = {
  ok: boolean;
  statusCode: number | null;
  latencyMs: number;
  error: string | null;
  responseBody: string;
};

/** Only this much of a receiver's answer is kept; it is shown to the merchant, not parsed. */
export const RESPONSE_BODY_LIMIT = 1024;
export const DEFAULT_WEBHOOK_TIMEOUT_MS = 10_000;
/**
 * How long an idle keep-alive connection to a receiver is kept: under the 5 s after which Node's
 * HTTP server (the shortest common default) closes its own, so that a delivery is rarely sent on
 * a connection the receiver is closing. When one is, see `post`.
 */
export const WEBHOOK_IDLE_MS = 4_000;
const USER_AGENT = "Mari-Webhooks/1.0";
/** What a request sent on a kept-alive connection that the receiver had just closed fails with. */
const STALE_CONNECTION = new Set(["ECONNRESET", "EPIPE"]);

type Attempt = { result: WebhookPostResult; staleConnection: boolean };

/**
 * A receiver's TLS certificate refused, in words a merchant can act on: Node's own messages name
 * the check, not the fix ("Hostname/IP does not match certificate's altnames: IP: … is not in the
 * cert's list: ."). The code stays in front, for searching.
 */
const TLS_IN_WORDS: Record<string, string> = {
  ERR_TLS_CERT_ALTNAME_INVALID: "the TLS certificate is not for this host name",
  CERT_HAS_EXPIRED: "the TLS certificate has expired",
  CERT_NOT_YET_VALID: "the TLS certificate is not valid yet",
  DEPTH_ZERO_SELF_SIGNED_CERT: "the TLS certificate is self-signed",
  SELF_SIGNED_CERT_IN_CHAIN: "the TLS certificate chain ends in a self-signed certificate",
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: "the TLS certificate chain is incomplete: serve the intermediate certificates too",
  UNABLE_TO_GET_ISSUER_CERT_LOCALLY: "the TLS certificate's issuer is not a trusted authority",
};

/** What a failed post says of its cause: the error code, then the message or, for a refused certificate, plain words. */
export function describeError(err: unknown): string {
  if (!(err instanceof Error)) return String(err);
  const code = (err as NodeJS.ErrnoException).code;
  if (code === "WEBHOOK_ADDRESS_REFUSED") return err.message;
  if (code && Object.hasOwn(TLS_IN_WORDS, code)) return `${code}: ${TLS_IN_WORDS[code]}`;
  // Node reports a failed Happy Eyeballs connect as an AggregateError with an empty message.
  const message =
    err.message || (err instanceof AggregateError ? err.errors.map((e: unknown) => describeError(e)).join("; ") : err.name);
  return code && !message.includes(code) ? `${code}: ${message}` : message;
}

function statusError(status: number): string | null {
  if (status >= 200 && status < 300) return null;
  if (status >= 300 && status < 400) return `HTTP ${status} (redirects are not followed)`;
  return `HTTP ${status}`;
}

/**
 * POSTs webhook deliveries over one keep-alive agent per protocol. Every address is checked
 * when the socket connects, and the result is always a value: a delivery attempt never throws.
 * A post that fails on a reused connection before any answer (the receiver closed it as the
 * request went out) is sent once more at once, on a new connection, within the same timeout:
 * deliveries are at least once, and that failure says nothing about the receiver.
 */
export class WebhookPoster {
  private readonly policy: AddressPolicy;
  private readonly timeoutMs: number;
  private readonly now: () => number;
  private readonly httpAgent: http.Agent;
  private readonly httpsAgent: https.Agent;

  constructor(opts: { policy: AddressPolicy; timeoutMs?: number; idleMs?: number; resolve?: Resolver; now?: () => number }) {
    this.policy = opts.policy;
    this.timeoutMs = opts.timeoutMs ?? DEFAULT_WEBHOOK_TIMEOUT_MS;
    this.now = opts.now ?? (() => performance.now());
    const lookup = guardedLookup(opts.policy, opts.resolve);
    const agentOptions = { keepAlive: true, maxSockets: 256, lookup, timeout: opts.idleMs ?? WEBHOOK_IDLE_MS };
    this.httpAgent = new http.Agent(agentOptions);
    this.httpsAgent = new https.Agent(agentOptions);
  }

  async post(url: string, body: string, headers: Record<string, string>): Promise<WebhookPostResult> {
    const started = this.now();
    const failed = (error: string): WebhookPostResult => ({
      ok: false,
      statusCode: null,
      latencyMs: this.now() - started,
      error,
      responseBody: "",
    });

    let target: URL;
    try {
      target = new URL(url);
    } catch {
      return failed("invalid URL");
    }
    if (target.protocol !== "http:" && target.protocol !== "https:") return failed(`unsupported protocol ${target.protocol}`);
    // Node never calls `lookup` for an IP literal, so the agent's guard would not see it.
    const host = target.hostname.replace(/^\[(.*)\]$/, "$1");
    if (isIP(host)) {
      const reason = addressRefusal(host, this.policy);
      if (reason) return failed(refusalSentence(reason, host));
    }

    const sent: Record<string, string> = {};
    for (const [name, value] of Object.entries(headers)) {
      if (name.toLowerCase() !== "content-length") sent[name] = value;
    }
    if (!Object.keys(sent).some((name) => name.toLowerCase() === "user-agent")) sent["User-Agent"] = USER_AGENT;
    sent["Content-Length"] = String(Buffer.byteLength(body));

    const first = await this.attempt(target, sent, body, started);
    if (!first.staleConnection) return first.result;
    return (await this.attempt(target, sent, body, started)).result;
  }

  /** One request; the timeout, counted from `started`, covers connect, response headers and the body read. */
  private attempt(target: URL, sent: Record<string, string>, body: string, started: number): Promise<Attempt> {
    return new Promise<Attempt>((resolve) => {
      let settled = false;
      let statusCode: number | null = null;
      const chunks: Buffer[] = [];
      let received = 0;

      const settle = (error: string | null, staleConnection = false) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        const result = {
          ok: error === null,
          statusCode,
          latencyMs: this.now() - started,
          error,
          responseBody: Buffer.concat(chunks).subarray(0, RESPONSE_BODY_LIMIT).toString("utf8"),
        };
        resolve({ result, staleConnection });
      };

      let request: http.ClientRequest | undefined;
      const timer = setTimeout(
        () => {
          settle(`timed out after ${this.timeoutMs} ms`);
          request?.destroy();
        },
        Math.max(0, this.timeoutMs - (this.now() - started)),
      );
      try {
        const send = target.protocol === "https:" ? https.request : http.request;
        request = send(
          target,
          { method: "POST", headers: sent, agent: target.protocol === "https:" ? this.httpsAgent : this.httpAgent },
          (response) => {
            statusCode = response.statusCode ?? null;
            const error = statusCode === null ? "no status code" : statusError(statusCode);
            response.on("data", (chunk: Buffer) => {
              chunks.push(chunk);
              received += chunk.length;
              if (received >= RESPONSE_BODY_LIMIT) {
                // Enough to show; the rest is not worth the bandwidth or the socket.
                settle(error);
                response.destroy();
              }
            });
            response.on("end", () => settle(error));
            response.on("error", (err) => settle(describeError(err)));
            response.on("close", () => settle(error ?? "connection closed before the response ended"));
          },
        );
        request.on("error", (err) => {
          const code = (err as NodeJS.ErrnoException).code;
          settle(describeError(err), request!.reusedSocket && statusCode === null && code !== undefined && STALE_CONNECTION.has(code));
        });
        request.end(body);
      } catch (err) {
        settle(describeError(err));
      }
    });
  }

  close(): void {
    this.httpAgent.destroy();
    this.httpsAgent.destroy();
  }
}
