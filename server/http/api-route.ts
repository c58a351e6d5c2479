import type { z } from "zod";
import { getDb } from "@/db/client";
import { keyAllows, presentedKey, type Scope as ApiScope } from "@/server/domain/api-keys";
import { idempotencyKeyReused, isServiceError, keyFailuresLimited, ServiceError } from "@/server/domain/errors";
import { newId } from "@/server/domain/ids";
import { seal, unseal } from "@/server/domain/sealing";
import { dataKey } from "@/server/data-key";
import { systemClock } from "@/server/clock";
import type { BaseContext, ServiceContext } from "@/server/context";
import { log } from "@/server/log";
import { providers } from "@/server/providers/registry";
import type { Operation } from "@/server/schemas/common";
import { authenticateApiKey } from "@/server/services/api-keys/authenticate-api-key";
import { recallCompleted } from "@/server/services/idempotency/remembered";
import { claimIdempotencyKey, heldRecord, keyRequestHash, type ClaimRow, type ClaimStatement, type KeyClaim, type OwnedKey, type Replay, type Scope } from "@/server/services/idempotency/claim";
import type { Completion, ResponseRecord } from "@/server/services/idempotency/completion";
import { discardUnreadBody, readJsonBody } from "./body";
import { trustedClientAddress } from "./client-address";
import { errorBody, internalError, raw, statusOf, unrecognizedPathResponse } from "./errors";
import { requestFingerprint, validateIdempotencyKey } from "./idempotency";
import { consumeRateLimit, countKeyFailure, keyFailuresWait } from "@/server/rate-limit";
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
  /**
   * The request's Idempotency-Key, for a handler whose service claims it in its first write
   * (`claimInFirstWrite`). Undefined otherwise, and when the request carries no key.
   */
  claim: KeyClaim | undefined;
};

export type RouteOptions = {
  /**
   * The handler's service claims the Idempotency-Key in the statement of its first write
   * (`KeyClaim`) instead of the wrapper claiming it before the handler runs: one statement and one
   * commit fewer. Answers stay what they would be with the key claimed first: a handler that
   * fails before it claims has the key claimed then, so a stored answer is still replayed, a
   * conflict still reported, and its own 4xx stored.
   */
  claimInFirstWrite?: boolean;
};

/** Claims the request's key with `first` (alone when omitted); answers the row of the statement that claimed it. */
type ClaimKey = <R extends ClaimRow>(first?: ClaimStatement<R>) => Promise<R | undefined>;

/** A stored answer found by a claim inside the handler: thrown through the service, sent as the replay. */
class Replayed extends Error {
  constructor(readonly replay: Replay) {
    super("replayed");
  }
}

/**
 * Key auth, with a budget of failures per client address where the proxies in front tell it: an
 * address past its minute's failures is refused before its key is looked up, whatever key it sends.
 */
async function authenticateFrom(base: BaseContext, authorization: string | null, clientAddress: string | null) {
  if (clientAddress !== null) {
    const wait = await keyFailuresWait(clientAddress);
    if (wait > 0) throw keyFailuresLimited(wait);
  }
  try {
    return await authenticateApiKey(base, presentedKey(authorization));
  } catch (e) {
    if (clientAddress !== null && isServiceError(e) && e.code === "api_key_invalid") await countKeyFailure(clientAddress);
    throw e;
  }
}

type RouteContext = { params: Promise<Record<string, string | string[] | undefined>> };

/** Who is calling: the key, its merchant, and the client address the proxies in front tell (else null). */
type Caller = Awaited<ReturnType<typeof authenticateFrom>> & { clientAddress: string | null };

/** Key auth, the operation's scope, the key's rate limit: who may call, and whether now. */
async function admit(base: BaseContext, request: Request, op: Operation<z.ZodType | undefined, z.ZodType | undefined>, needed: ApiScope): Promise<Caller> {
  const clientAddress = trustedClientAddress(request.headers.get("x-forwarded-for"));
  const { key, merchant } = await authenticateFrom(base, request.headers.get("authorization"), clientAddress);
  if (!keyAllows(key.kind, key.scopes, needed)) {
    throw new ServiceError("scope_missing", `This API key does not have the '${needed}' scope needed for ${op.method} ${op.path}.`);
  }
  const limit = await consumeRateLimit(key.id, key.livemode);
  if (!limit.ok) {
    throw new ServiceError("rate_limited", "Too many requests. Back off and retry after the Retry-After interval.", undefined, {
      retryAfterSeconds: limit.retryAfterSeconds,
    });
  }
  return { key, merchant, clientAddress };
}


/** A request read and validated, with its Idempotency-Key and the fingerprint the key is claimed with (when it carries one). */
type ReadRequest<B, Q> = {
  query: Out<Q>;
  body: Out<B>;
  idempotency: { key: string; fingerprint: string } | null;
};

/**
 * Query, Idempotency-Key and body, in that order, or the stored answer of a retry this process
 * completed. Validation runs before any claim, so a rejected request writes nothing.
 */
async function readRequest<B extends z.ZodType | undefined, Q extends z.ZodType | undefined>(
  base: BaseContext,
  scope: Scope,
  request: Request,
  url: URL,
  op: Operation<B, Q>,
): Promise<ReadRequest<B, Q> | { replay: { status: number; body: string } }> {
  const query = (op.query ? parseOrThrow(op.query, queryObject(url), "query") : refuseQuery(url, op.body !== undefined)) as Out<Q>;
  // The key's own rules come before the body's (spec: a create without a key is
  // idempotency_key_required, whatever its body, even one that is not JSON at all).
  const idempotencyKey = validateIdempotencyKey(op.idempotency === "none" ? null : request.headers.get("idempotency-key"));
  if (op.idempotency === "required" && idempotencyKey === null) {
    throw new ServiceError("idempotency_key_required", `${op.method} ${op.path} requires an Idempotency-Key header.`, "Idempotency-Key");
  }
  // A key already used with another request is told so, even when this body is also wrong:
  // the earlier one passed validation (nothing is recorded for one that did not), so a body
  // that fails it is another request. `fingerprint` is this body's, when it could be read.
  const refuseReusedKey = async (e: unknown, fingerprint: string | null, remembered?: "other_request") => {
    if (idempotencyKey === null || !isServiceError(e) || e.code !== "parameter_invalid") return;
    const earlier = remembered ?? (await keyRequestHash(base, scope, idempotencyKey));
    if (earlier !== undefined && earlier !== fingerprint) throw idempotencyKeyReused();
  };
  // A GET or DELETE takes no body: one that comes with a body is read so that it can be refused
  // (below) rather than silently ignored. Next drops a GET's body before it gets here, but its
  // headers still say it had one.
  let parsedBody: Awaited<ReturnType<typeof readJsonBody>> | undefined;
  try {
    parsedBody = op.method === "POST" || request.body !== null ? await readJsonBody(request) : undefined;
  } catch (e) {
    await refuseReusedKey(e, null);
    throw e;
  }
  if (parsedBody === undefined && declaresBody(request.headers)) refuseBody(null);
  // No body at all reads as `{}`: an operation whose fields are all optional needs none, and
  // one with required fields names the first missing one. No body and `{}` are one request for
  // the key too, so a retry may send either.
  const value = parsedBody?.value === undefined ? {} : parsedBody.value;
  // A retry of a request this process completed gets its stored answer without the database,
  // and before its body is validated: the same request passed validation when first sent (one
  // that fails it is never recorded), and its answer stays the stored one even where the
  // checks would now read differently (an expiry time since passed).
  const fingerprint = idempotencyKey !== null ? requestFingerprint(op.method, url.pathname, value) : null;
  const remembered = idempotencyKey !== null && fingerprint !== null ? recallCompleted(scope, idempotencyKey, fingerprint, base.clock.now()) : undefined;
  if (remembered !== undefined && remembered !== "other_request") return { replay: remembered };
  let body: Out<B>;
  try {
    body = (op.body ? parseOrThrow(op.body, value, "body") : refuseBody(parsedBody?.value)) as Out<B>;
  } catch (e) {
    await refuseReusedKey(e, fingerprint, remembered);
    throw e;
  }
  if (idempotencyKey === null) return { query, body, idempotency: null };
  if (remembered === "other_request") throw idempotencyKeyReused();
  // Every body that passed validation is shallow enough to have one.
  if (fingerprint === null) throw new Error(`${op.operationId}: a validated body has no fingerprint`);
  return { query, body, idempotency: { key: idempotencyKey, fingerprint } };
}

/**
 * The request's Idempotency-Key from its claim to its answer: claimed once (before the handler, or
 * by its service's first write), then completed with the answer, or released for one not kept.
 */
class RequestKey {
  /** The key as this request owns it, once claimed. */
  owned: OwnedKey | undefined;
  claimed = false;

  constructor(
    private readonly base: BaseContext,
    private readonly scope: Scope,
    private readonly idempotencyKey: string,
    private readonly fingerprint: string,
  ) {}

  /** Claims the key with `first` (alone when omitted); a stored answer found is thrown as `Replayed`. */
  claim: ClaimKey = async (first) => {
    this.claimed = true;
    const claim = await claimIdempotencyKey(this.base, this.scope, this.idempotencyKey, this.fingerprint, first);
    if (claim.kind === "replay") throw new Replayed(claim);
    this.owned = claim;
    return claim.claimedBy;
  };

  /** The held key, asked for by a service's last write: claimed by then (before the handler, or by its first write). */
  holder(operationId: string): OwnedKey {
    if (!this.owned) throw new Error(`${operationId}: the response's record was asked for before the key was claimed`);
    return this.owned;
  }
}

/**
 * The one wrapper every /v1 handler goes through, in this order: request id, key auth, scope,
 * rate limit, query and body parsing, idempotency, the handler, the error envelope.
 * Validation runs before the idempotency claim so a rejected request writes nothing.
 */
export function apiRoute<B extends z.ZodType | undefined, Q extends z.ZodType | undefined>(
  op: Operation<B, Q>,
  handler: (args: HandlerArgs<B, Q>) => Promise<unknown>,
  options: RouteOptions = {},
) {
  const needed = op.scope;
  if (needed === null) throw new Error(`${op.operationId} has no scope; serve public documents without apiRoute`);
  // What the idempotency record keeps of a response: sealed when it carries a secret.
  const storable = (text: string) => (op.secretInResponse ? seal(dataKey(), text) : text);
  return async function route(request: Request, routeContext?: RouteContext): Promise<Response> {
    const requestId = newId("request");
    const url = new URL(request.url);
    const misaddressed = trailingSlashAnswer(request.method, url, requestId);
    if (misaddressed) return misaddressed;
    let requestKey: RequestKey | undefined;
    try {
      const base = { db: await getDb(), clock: systemClock };
      const { key, merchant, clientAddress } = await admit(base, request, op, needed);
      const scope = { merchantId: merchant.id, livemode: key.livemode };
      const read = await readRequest(base, scope, request, url, op);
      if ("replay" in read) return replayResponse(read.replay, requestId);
      const params = await resolveParams(routeContext);
      // Kept outside the try too, for the error's answer to settle.
      const idem = (requestKey = read.idempotency ? new RequestKey(base, scope, read.idempotency.key, read.idempotency.fingerprint) : undefined);
      if (idem && !options.claimInFirstWrite) await idem.claim();
      const ctx: ServiceContext = {
        ...base,
        providers,
        merchant,
        livemode: key.livemode,
        actor: { type: "api_key", keyId: key.id, displayPrefix: key.displayPrefix },
        requestId,
        clientAddress,
      };
      const stored: { completion?: Completion } = {};
      // Asked for before the handler runs; the key is held by the time the service's last write
      // asks for the completion.
      const responseRecord = <T>(toBody: (result: T) => unknown): ResponseRecord<T> | undefined =>
        idem &&
        heldRecord(() => idem.holder(op.operationId), op.status, toBody, storable, (completion) => {
          stored.completion = completion;
        });
      const claim = options.claimInFirstWrite && idem ? keyClaim(idem.claim) : undefined;
      const result = await handler({ ctx, body: read.body, query: read.query, params, idempotencyKey: read.idempotency?.key ?? null, url, responseRecord, claim });
      if (idem && !idem.claimed) throw new Error(`${op.operationId}: the handler never claimed its Idempotency-Key`);
      // The service's own write stored the response: send exactly what it stored.
      if (stored.completion) return raw(op.status, stored.completion.sent, requestId);
      const text = JSON.stringify(result);
      if (idem?.owned) await idem.owned.complete(op.status, storable(text));
      return raw(op.status, text, requestId);
    } catch (caught) {
      return errorAnswer(caught, { op, request, requestId, requestKey });
    }
  };
}

/** The answer to a request that threw: a stored answer found late, or the error's envelope (kept as the key's answer when final). */
async function errorAnswer(
  caught: unknown,
  { op, request, requestId, requestKey }: { op: Operation<z.ZodType | undefined, z.ZodType | undefined>; request: Request; requestId: string; requestKey: RequestKey | undefined },
): Promise<Response> {
  let e = caught;
  if (requestKey && !requestKey.claimed && !(e instanceof Replayed)) {
    // The handler failed before it claimed the key: claim it now, so that the answer is the
    // one a claim before the handler would have given (a stored answer, a conflict, or this
    // failure, stored when it is a 4xx).
    await requestKey.claim().catch((claimError: unknown) => {
      e = claimError;
    });
  }
  if (e instanceof Replayed) return replayResponse(e.replay, requestId);
  const error = isServiceError(e) ? e : internalError();
  const status = statusOf(error);
  if (!isServiceError(e)) log.error("unhandled error", { requestId, op: op.operationId, error: e });
  const text = JSON.stringify(errorBody(error, requestId));
  const owned = requestKey?.owned;
  if (owned) {
    // 4xx answers are as final as successes and replay the same; 5xx and 429 are not stored,
    // so the documented "query, then retry with the same key" (or "retry after the pause")
    // runs the request again. Nor is `parameter_invalid`, wherever the check that refused the
    // request runs (the body's schema, or a service: a webhook URL that is not one, an expiry
    // already past): the request as sent was malformed, and the same key may carry it fixed.
    // Nor is `idempotency_key_reused` found by a service (the first request answered 5xx, so
    // no record was kept, but its payment or refund holds the key): the key is that request's.
    await (isStoredRefusal(error, status) ? owned.complete(status, text) : owned.release()).catch((err: unknown) =>
      log.error("idempotency record not saved", { requestId, error: err }),
    );
  }
  const retryAfter = error.retryAfterSeconds === undefined ? undefined : { "Retry-After": String(error.retryAfterSeconds) };
  await discardUnreadBody(request);
  return raw(status, text, requestId, retryAfter);
}

/** Whether a refusal is kept as its Idempotency-Key's answer (see the catch of apiRoute). */
function isStoredRefusal(error: ServiceError, status: number): boolean {
  return status < 500 && status !== 429 && error.code !== "parameter_invalid" && error.code !== "idempotency_key_reused";
}

/** A stored answer, sent again as it was stored (unsealed when it was sealed). */
function replayResponse(replay: { status: number; body: string }, requestId: string): Response {
  return raw(replay.status, unseal(dataKey(), replay.body), requestId, { "Idempotent-Replayed": "true" });
}

/**
 * The handler's side of the request's claim: its service's first write claims the key, and a
 * write that fails leaves the key claimed alone before its error goes back to the service.
 */
function keyClaim(claimKey: ClaimKey): KeyClaim {
  let used = false;
  return {
    async withFirstWrite<T>(write: ClaimStatement<ClaimRow & { written: T | null }>): Promise<T | undefined> {
      if (used) throw new Error("withFirstWrite: a request claims its key once");
      used = true;
      let writeError: unknown;
      const first: ClaimStatement<ClaimRow & { written: T | null }> = async (values) => {
        try {
          return await write(values);
        } catch (e) {
          writeError = e;
          throw e;
        }
      };
      try {
        return (await claimKey(first))?.written ?? undefined;
      } catch (e) {
        if (e !== writeError) throw e;
        // The write (and the record with it) rolled back: claim the key alone, and let the
        // service handle its write's failure as it would without a claim.
        await claimKey();
        throw e;
      }
    },
  };
}

/** An operation without query parameters refuses any, saying where its fields go (a field of that name may be in the body too). */
function refuseQuery(url: URL, takesBody: boolean): undefined {
  const first = url.searchParams.keys().next();
  if (!first.done) {
    const where = takesBody ? " send its fields in the JSON body" : "";
    throw new ServiceError("parameter_invalid", `Unknown query parameter: '${first.value}'. This operation takes no query parameters${where ? `:${where}` : ""}.`, first.value);
  }
  return undefined;
}

/** Headers announcing a body: a length above zero, or chunks. */
function declaresBody(headers: Headers): boolean {
  return headers.has("transfer-encoding") || Number(headers.get("content-length") ?? "0") > 0;
}

/**
 * An operation without a body refuses one, except `{}`: many clients send it with every POST or
 * DELETE, and it asks for nothing. (A GET's body never arrives: its headers alone refuse it.)
 */
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

/**
 * Each operation has one address. Next routes `/v1/payments/` to the handler of `/v1/payments`
 * (next.config.ts turns off its redirect, which answered without a Request-Id): such a request is
 * a 404 in the envelope, naming the address meant.
 */
export function trailingSlashAnswer(method: string, url: URL, requestId: string): Response | undefined {
  return url.pathname.endsWith("/") ? unrecognizedPathResponse(method, url.pathname, requestId) : undefined;
}

/** Answers for paths and methods that no operation serves, in the same envelope. */
export function notFoundRoute(request: Request): Response {
  return unrecognizedPathResponse(request.method, new URL(request.url).pathname, newId("request"));
}

/** The list envelope of DESIGN.md: `{ object: "list", data, has_more, url }`. */
export function listResponse<Row, R>(url: URL, page: { data: Row[]; hasMore: boolean }, toResource: (row: Row) => R) {
  return { object: "list" as const, data: page.data.map(toResource), has_more: page.hasMore, url: url.pathname };
}
