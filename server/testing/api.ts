import * as openapi from "@/app/v1/openapi.json/route";
import * as catchAll from "@/app/v1/[...path]/route";
import * as payment from "@/app/v1/payments/[id]/route";
import * as preview from "@/app/v1/payments/preview/route";
import * as payments from "@/app/v1/payments/route";
import * as testHelper from "@/app/v1/test_helpers/payments/[id]/[action]/route";
import * as events from "@/app/v1/events/route";
import * as event from "@/app/v1/events/[id]/route";
import * as eventReplay from "@/app/v1/events/[id]/replay/route";
import * as eventWindowReplay from "@/app/v1/events/replay/route";
import * as eventReplays from "@/app/v1/event_replays/route";
import * as eventReplayOne from "@/app/v1/event_replays/[id]/route";
import * as endpoints from "@/app/v1/webhook_endpoints/route";
import * as endpoint from "@/app/v1/webhook_endpoints/[id]/route";
import * as rollSecret from "@/app/v1/webhook_endpoints/[id]/roll_secret/route";
import * as deliveries from "@/app/v1/webhook_deliveries/route";
import * as refunds from "@/app/v1/refunds/route";
import * as refund from "@/app/v1/refunds/[id]/route";
import * as settlementList from "@/app/v1/settlements/route";
import * as settlement from "@/app/v1/settlements/[id]/route";
import * as settlementLines from "@/app/v1/settlements/[id]/lines/route";
import * as settlementRun from "@/app/v1/test_helpers/settlements/run/route";
import * as paymentLinks from "@/app/v1/payment_links/route";
import * as paymentLink from "@/app/v1/payment_links/[id]/route";
import * as deactivateLink from "@/app/v1/payment_links/[id]/deactivate/route";
import * as checkoutSessions from "@/app/v1/checkout_sessions/route";
import * as checkoutSession from "@/app/v1/checkout_sessions/[id]/route";
import Ajv2020, { type ValidateFunction } from "ajv/dist/2020";
import { env } from "@/server/env";
import { openApiDocument, operationFor, undocumentedError } from "@/server/openapi";
import type { Operation } from "@/server/schemas/common";

type Handler = (req: Request, ctx: { params: Promise<Record<string, string | string[]>> }) => Promise<Response> | Response;
type RouteModule = Partial<Record<"GET" | "POST" | "PUT" | "PATCH" | "DELETE", Handler>>;

// The app's /v1 routes in Next's matching order: static segments before dynamic ones.
const ROUTES: [RegExp, RouteModule][] = [
  [/^\/v1\/openapi\.json$/, openapi as RouteModule],
  [/^\/v1\/payments\/preview$/, preview],
  [/^\/v1\/payments$/, payments],
  [/^\/v1\/payments\/(?<id>[^/]+)$/, payment],
  [/^\/v1\/events\/replay$/, eventWindowReplay],
  [/^\/v1\/events$/, events],
  [/^\/v1\/events\/(?<id>[^/]+)$/, event],
  [/^\/v1\/events\/(?<id>[^/]+)\/replay$/, eventReplay],
  [/^\/v1\/event_replays$/, eventReplays],
  [/^\/v1\/event_replays\/(?<id>[^/]+)$/, eventReplayOne],
  [/^\/v1\/webhook_endpoints$/, endpoints],
  [/^\/v1\/webhook_endpoints\/(?<id>[^/]+)$/, endpoint],
  [/^\/v1\/webhook_endpoints\/(?<id>[^/]+)\/roll_secret$/, rollSecret],
  [/^\/v1\/webhook_deliveries$/, deliveries],
  [/^\/v1\/refunds$/, refunds],
  [/^\/v1\/refunds\/(?<id>[^/]+)$/, refund],
  [/^\/v1\/settlements$/, settlementList],
  [/^\/v1\/settlements\/(?<id>[^/]+)$/, settlement],
  [/^\/v1\/settlements\/(?<id>[^/]+)\/lines$/, settlementLines],
  [/^\/v1\/test_helpers\/settlements\/run$/, settlementRun],
  [/^\/v1\/payment_links$/, paymentLinks],
  [/^\/v1\/payment_links\/(?<id>[^/]+)$/, paymentLink],
  [/^\/v1\/payment_links\/(?<id>[^/]+)\/deactivate$/, deactivateLink],
  [/^\/v1\/checkout_sessions$/, checkoutSessions],
  [/^\/v1\/checkout_sessions\/(?<id>[^/]+)$/, checkoutSession],
  [/^\/v1\/test_helpers\/payments\/(?<id>[^/]+)\/(?<action>[^/]+)$/, testHelper],
];

export type ApiResponse<T = unknown> = { status: number; headers: Headers; text: string; body: T };

export type CallOptions = {
  key?: string | null;
  body?: unknown;
  /** Sent as is, instead of JSON-encoding `body`. */
  rawBody?: string;
  headers?: Record<string, string>;
  idempotencyKey?: string;
};

/**
 * Calls the app's route handlers with real Request objects, exactly as Next would: same
 * handlers, same parsing, same headers; only the socket is missing.
 */
export async function api<T = any>(method: string, path: string, opts: CallOptions = {}): Promise<ApiResponse<T>> {
  const url = new URL(path, "http://localhost:3000");
  const headers = new Headers(opts.headers);
  if (opts.key) headers.set("authorization", `Bearer ${opts.key}`);
  if (opts.idempotencyKey) headers.set("idempotency-key", opts.idempotencyKey);
  let body: string | undefined = opts.rawBody;
  if (body === undefined && opts.body !== undefined) {
    body = JSON.stringify(opts.body);
    if (!headers.has("content-type")) headers.set("content-type", "application/json");
  }
  const request = new Request(url, { method, headers, body });

  let handler: Handler | undefined;
  let params: Record<string, string | string[]> = {};
  for (const [pattern, mod] of ROUTES) {
    const m = pattern.exec(url.pathname);
    if (!m) continue;
    handler = mod[method as keyof RouteModule];
    params = { ...m.groups };
    break;
  }
  handler ??= (catchAll as RouteModule)[method as keyof RouteModule];
  if (!handler) throw new Error(`no handler for ${method} ${url.pathname}`);
  const response = await handler(request, { params: Promise.resolve(params) });
  const text = await response.text();
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  holdToDocument(method, url.pathname, response.status, parsed);
  return { status: response.status, headers: response.headers, text, body: parsed as T };
}

/**
 * Every answer a test meets must be one the OpenAPI document describes for its operation: a
 * success with the status and a body the entry gives (its objects take no field it does not name),
 * an error with a code it lists. Paths and methods no operation serves (the catch-all 404) are
 * the document's silence, not a contradiction.
 */
export function holdToDocument(method: string, pathname: string, status: number, body: unknown): void {
  const op = operationFor(method, pathname);
  if (!op) return;
  const problem = status < 400 ? undocumentedSuccess(op, status, body) : undocumentedError(op, status, (body as { error?: { code?: unknown } } | undefined)?.error?.code);
  if (problem) throw new Error(problem);
}

const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: false });
let published: ReturnType<typeof openApiDocument> | undefined;

/** The OpenAPI document the API publishes, as the tests hold answers to it. */
export const publishedDocument = () => (published ??= openApiDocument(env().PUBLIC_BASE_URL));

/**
 * A schema with every object closed: an object that names its properties and says nothing of the
 * others takes no others.
 */
function closed(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(closed);
  if (!schema || typeof schema !== "object") return schema;
  const out: Record<string, unknown> = Object.fromEntries(Object.entries(schema).map(([k, v]) => [k, k === "const" || k === "enum" || k === "default" ? v : closed(v)]));
  if ("properties" in out && !("additionalProperties" in out) && !("unevaluatedProperties" in out)) out.unevaluatedProperties = false;
  return out;
}

const compiled = new Map<string, ValidateFunction>();

/** A validator of `schema` from the published document (its objects closed, its components in reach), compiled once per `key`. */
export function documentedValidator(key: string, schema: unknown): ValidateFunction {
  let v = compiled.get(key);
  if (!v) compiled.set(key, (v = ajv.compile({ ...(closed(schema) as object), components: publishedDocument().components })));
  return v;
}

function undocumentedSuccess(op: Operation, status: number, body: unknown): string | null {
  if (status !== op.status) return `${op.method} ${op.path} answered ${status}, where its OpenAPI entry gives ${op.status}`;
  const entry = publishedDocument().paths[op.path]![op.method.toLowerCase()] as { responses: Record<string, { content: { "application/json": { schema: object } } }> };
  const validate = documentedValidator(`${op.method} ${op.path}`, entry.responses[String(op.status)]!.content["application/json"].schema);
  if (validate(body)) return null;
  return `${op.method} ${op.path} answered ${status} with a body its OpenAPI entry does not describe: ${JSON.stringify(validate.errors?.slice(0, 3))}`;
}
