import type { z } from "zod";
import { getDb } from "@/db/client";
import { keyAllows } from "@/server/domain/api-keys";
import { isServiceError, ServiceError } from "@/server/domain/errors";
import { newId } from "@/server/domain/ids";
import { seal, unseal } from "@/server/domain/sealing";
import { dataKey } from "@/server/data-key";
import { systemClock } from "@/server/clock";
import type { ServiceContext } from "@/server/context";
import { log } from "@/server/log";
import { providers } from "@/server/providers/registry";
import type { Operation } from "@/server/schemas/common";
import { authenticateApiKey } from "@/server/services/api-keys/authenticate-api-key";
import type { Completion, ResponseRecord } from "@/server/services/idempotency/completion";
import { readJsonBody } from "./body";
import { errorBody, internalError, raw, statusOf } from "./errors";
import { claimIdempotencyKey, requestFingerprint, validateIdempotencyKey, type OwnedKey } from "./idempotency";
import { consumeRateLimit } from "@/server/rate-limit";
import { parseOrThrow, queryObject } from "./validation";

type Out<T> = T extends z.ZodType ? z.output<T> : undefined;

export type HandlerArgs<B, Q> = {
  ctx: ServiceContext;
  body: Out<B>;
  query: Out<Q>;
  params: Record<string, string>;
  idempotencyKey: string | null;
  url: URL;
  /**
   * The request's idempotency record for a service whose last write can store the response
   * itself (`ResponseRecord`); `toBody` is how the handler renders that service's result.
   * Undefined when the request carries no Idempotency-Key.
   */
  responseRecord<T>(toBody: (result: T) => unknown): ResponseRecord<T> | undefined;
};

type RouteContext = { params: Promise<Record<string, string | string[] | undefined>> };

/**
 * The one wrapper every /v1 handler goes through, in this order: request id, key auth, scope,
 * rate limit, query and body parsing, idempotency, the handler, the error envelope.
 * Validation runs before the idempotency claim so a rejected request writes nothing.
 */
export function apiRoute<B extends z.ZodType | undefined, Q extends z.ZodType | undefined>(
  op: Operation<B, Q>,
  handler: (args: HandlerArgs<B, Q>) => Promise<unknown>,
) {
  return async function route(request: Request, routeContext?: RouteContext): Promise<Response> {
    const requestId = newId("request");
    let held: OwnedKey | undefined;
    // What the idempotency record keeps of a response: sealed when it carries a secret.
    const storable = (text: string) => (op.secretInResponse ? seal(dataKey(), text) : text);
    try {
      const db = await getDb();
      const base = { db, clock: systemClock };
      const url = new URL(request.url);
      if (op.scope === null) throw new Error(`${op.operationId} has no scope; serve public documents without apiRoute`);

      const { key, merchant } = await authenticateApiKey(base, presentedKey(request));
      if (!keyAllows(key.kind, key.scopes, op.scope)) {
        throw new ServiceError("scope_missing", `This API key does not have the '${op.scope}' scope needed for ${op.method} ${op.path}.`);
      }
      const limit = await consumeRateLimit(key.id, key.livemode);
      if (!limit.ok) {
        throw new ServiceError("rate_limited", "Too many requests. Back off and retry after the Retry-After interval.", undefined, {
          retryAfterSeconds: limit.retryAfterSeconds,
        });
      }

      const query = (op.query ? parseOrThrow(op.query, queryObject(url), "query") : refuseQuery(url)) as Out<Q>;
      const parsedBody = op.method === "POST" ? await readJsonBody(request) : undefined;
      // No body at all reads as `{}`: an operation whose fields are all optional needs none, and
      // one with required fields names the first missing one.
      const body = (op.body ? parseOrThrow(op.body, parsedBody?.value === undefined ? {} : parsedBody.value, "body") : refuseBody(parsedBody?.value)) as Out<B>;
      const params = await resolveParams(routeContext);

      const idempotencyKey = op.idempotency === "none" ? null : validateIdempotencyKey(request.headers.get("idempotency-key"));
      if (op.idempotency === "required" && idempotencyKey === null) {
        throw new ServiceError("idempotency_key_required", `${op.method} ${op.path} requires an Idempotency-Key header.`, "Idempotency-Key");
      }
      if (idempotencyKey !== null) {
        const claim = await claimIdempotencyKey(
          base,
          { merchantId: merchant.id, livemode: key.livemode },
          idempotencyKey,
          requestFingerprint(op.method, url.pathname, parsedBody?.value),
        );
        if (claim.kind === "replay") return raw(claim.status, unseal(dataKey(), claim.body), requestId, { "Idempotent-Replayed": "true" });
        held = claim;
      }

      const ctx: ServiceContext = {
        ...base,
        providers,
        merchant,
        livemode: key.livemode,
        actor: { type: "api_key", keyId: key.id },
        requestId,
      };
      const stored: { completion?: Completion } = {};
      const owner = held;
      const responseRecord = <T>(toBody: (result: T) => unknown): ResponseRecord<T> | undefined =>
        owner && {
          completionFor: (result) => {
            const text = JSON.stringify(toBody(result));
            return owner.completion(op.status, storable(text), text);
          },
          completedWith: (completion) => {
            stored.completion = completion;
          },
        };
      const result = await handler({ ctx, body, query, params, idempotencyKey, url, responseRecord });
      // The service's own write stored the response: send exactly what it stored.
      if (stored.completion) return raw(op.status, stored.completion.sent, requestId);
      const text = JSON.stringify(result);
      if (held) await held.complete(op.status, storable(text));
      return raw(op.status, text, requestId);
    } catch (e) {
      const error = isServiceError(e) ? e : internalError();
      const status = statusOf(error);
      if (!isServiceError(e)) log.error("unhandled error", { requestId, op: op.operationId, error: e });
      const text = JSON.stringify(errorBody(error, requestId));
      if (held) {
        // 4xx answers are as final as successes and replay the same; 5xx and 429 are not stored,
        // so the documented "query, then retry with the same key" (or "retry after the pause")
        // runs the request again.
        await (status < 500 && status !== 429 ? held.complete(status, text) : held.release()).catch((err: unknown) =>
          log.error("idempotency record not saved", { requestId, error: err }),
        );
      }
      const retryAfter = error.retryAfterSeconds === undefined ? undefined : { "Retry-After": String(error.retryAfterSeconds) };
      return raw(status, text, requestId, retryAfter);
    }
  };
}

/** The presented key: `Authorization: Bearer <key>`, or HTTP Basic with the key as user name (`curl -u key:`). */
function presentedKey(request: Request): string | null {
  const header = request.headers.get("authorization");
  if (!header) return null;
  const bearer = /^Bearer\s+(\S+)\s*$/i.exec(header);
  if (bearer) return bearer[1]!;
  const basic = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(header);
  if (basic) return Buffer.from(basic[1]!, "base64").toString("utf8").split(":")[0] ?? "";
  return "";
}

function refuseQuery(url: URL): undefined {
  const first = url.searchParams.keys().next();
  if (!first.done) throw new ServiceError("parameter_invalid", `Unknown parameter: '${first.value}'.`, first.value);
  return undefined;
}

function refuseBody(value: unknown): undefined {
  if (value === undefined) return undefined;
  if (value && typeof value === "object" && !Array.isArray(value) && Object.keys(value).length === 0) return undefined;
  throw new ServiceError("parameter_invalid", "This endpoint takes no request body.", "body");
}

async function resolveParams(routeContext: RouteContext | undefined): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries((await routeContext?.params) ?? {})) if (typeof v === "string") out[k] = v;
  return out;
}


export function json(status: number, body: unknown, requestId: string, extra: Record<string, string> = {}): Response {
  return raw(status, JSON.stringify(body), requestId, extra);
}

/** Answers for paths and methods that no operation serves, in the same envelope. */
export function notFoundRoute(request: Request): Response {
  const requestId = newId("request");
  const url = new URL(request.url);
  const error = new ServiceError("resource_missing", `Unrecognized request URL (${request.method} ${url.pathname}).`);
  return json(statusOf(error), errorBody(error, requestId), requestId);
}

/** The list envelope of DESIGN.md: `{ object: "list", data, has_more, url }`. */
export function listResponse<Row, R>(url: URL, page: { data: Row[]; hasMore: boolean }, toResource: (row: Row) => R) {
  return { object: "list" as const, data: page.data.map(toResource), has_more: page.hasMore, url: url.pathname };
}
