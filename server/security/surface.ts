import { readdirSync } from "node:fs";
import path from "node:path";
import type { Scope } from "@/server/domain/api-keys";
import { ID_PREFIXES, newId, type IdKind } from "@/server/domain/ids";
import { notFoundRoute } from "@/server/http/api-route";
import { openApiDocument } from "@/server/openapi";
import { holdToDocument } from "@/server/testing/api";
import { paymentBody, uniqueRef } from "@/server/testing/fixtures";
import type { Objects } from "./world";

export const METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE"] as const;
export type Method = (typeof METHODS)[number];

/** The kinds of object a path names, as `Objects` holds them. */
export type ObjectKind = Exclude<keyof Objects, "livemode" | "reference" | "paidPayment">;

/**
 * One /v1 route and method. `scope` is what DESIGN.md's scopes list says it needs, written here
 * by hand so that an operation declared with another scope fails the matrix. `id` names the kind
 * of object `{id}` is. `request` is a well-formed request made with our own objects: it is what
 * every key is tried with, so a key that gets through gets through with a request that works.
 */
export type RouteProbe = {
  method: "GET" | "POST" | "DELETE";
  path: string;
  scope: Scope | null;
  id?: ObjectKind;
  /** Path parameters other than `{id}`. */
  params?: Record<string, string>;
  request?: (o: Objects) => { body?: unknown; query?: Record<string, string>; idempotency?: boolean };
  /** Served for test keys only: a live key is answered 404 whatever it names. */
  testOnly?: boolean;
  /** The request names our objects outside the path (a body field); a stranger's key gets 404 on it. */
  refersToOurs?: boolean;
  /** Lists: the kinds of id `starting_after`/`ending_before` take. */
  cursor?: ObjectKind[];
};

/** Unix seconds an hour ago, as a replay window's start. */
export const hourAgo = () => String(Math.floor(Date.now() / 1000) - 3600);

/** Every /v1 route and method the app serves. `surface.test` holds it to the route files. */
export const ROUTES: RouteProbe[] = [
  { method: "POST", path: "/v1/payments", scope: "payments:write", request: () => ({ body: paymentBody({ customer: { msisdn: "263770000001" } }), idempotency: true }) },
  { method: "GET", path: "/v1/payments", cursor: ["payment"], scope: "payments:read" },
  { method: "POST", path: "/v1/payments/preview", scope: "payments:read", request: () => ({ body: { amount: 100, currency: "USD", method: "wallet" } }) },
  { method: "GET", path: "/v1/payments/{id}", scope: "payments:read", id: "payment" },
  { method: "POST", path: "/v1/test_helpers/payments/{id}/{action}", scope: "payments:write", id: "payment", params: { action: "succeed" }, testOnly: true },
  { method: "GET", path: "/v1/refunds", cursor: ["refund"], scope: "refunds:read" },
  { method: "POST", path: "/v1/refunds", scope: "refunds:write", refersToOurs: true, request: (o) => ({ body: { payment: o.paidPayment, amount: 1 }, idempotency: true }) },
  { method: "GET", path: "/v1/refunds/{id}", scope: "refunds:read", id: "refund" },
  { method: "GET", path: "/v1/payment_links", cursor: ["paymentLink"], scope: "links:read" },
  { method: "POST", path: "/v1/payment_links", scope: "links:write", request: () => ({ body: { amount: 500, currency: "USD", description: "Probe" } }) },
  { method: "GET", path: "/v1/payment_links/{id}", scope: "links:read", id: "paymentLink" },
  { method: "POST", path: "/v1/payment_links/{id}/deactivate", scope: "links:write", id: "paymentLink" },
  { method: "GET", path: "/v1/checkout_sessions", cursor: ["checkoutSession"], scope: "payments:read" },
  {
    method: "POST",
    path: "/v1/checkout_sessions",
    scope: "payments:write",
    request: () => ({ body: { amount: 700, currency: "USD", reference: uniqueRef("cs"), success_url: "https://shop.test/done" } }),
  },
  { method: "GET", path: "/v1/checkout_sessions/{id}", scope: "payments:read", id: "checkoutSession" },
  { method: "GET", path: "/v1/events", cursor: ["event"], scope: "events:read" },
  { method: "GET", path: "/v1/events/{id}", scope: "events:read", id: "event" },
  { method: "POST", path: "/v1/events/{id}/replay", scope: "events:replay", id: "event" },
  { method: "POST", path: "/v1/events/replay", scope: "events:replay", request: () => ({ body: { created_gte: hourAgo(), dry_run: true } }) },
  { method: "GET", path: "/v1/event_replays", cursor: ["eventReplay"], scope: "events:read" },
  { method: "GET", path: "/v1/event_replays/{id}", scope: "events:read", id: "eventReplay" },
  { method: "GET", path: "/v1/webhook_endpoints", cursor: ["webhookEndpoint"], scope: "webhooks:read" },
  { method: "POST", path: "/v1/webhook_endpoints", scope: "webhooks:write", request: () => ({ body: { url: "https://127.0.0.1:9/new", enabled_events: ["*"] } }) },
  { method: "GET", path: "/v1/webhook_endpoints/{id}", scope: "webhooks:read", id: "webhookEndpoint" },
  { method: "POST", path: "/v1/webhook_endpoints/{id}", scope: "webhooks:write", id: "webhookEndpoint", request: () => ({ body: { description: "taken over", disabled: true } }) },
  { method: "DELETE", path: "/v1/webhook_endpoints/{id}", scope: "webhooks:write", id: "webhookEndpoint" },
  { method: "POST", path: "/v1/webhook_endpoints/{id}/roll_secret", scope: "webhooks:write", id: "webhookEndpoint" },
  { method: "GET", path: "/v1/webhook_deliveries", cursor: ["webhookDelivery"], scope: "webhooks:read" },
  { method: "GET", path: "/v1/settlements", cursor: ["settlement"], scope: "settlements:read" },
  { method: "GET", path: "/v1/settlements/{id}", scope: "settlements:read", id: "settlement" },
  { method: "GET", path: "/v1/settlements/{id}/lines", scope: "settlements:read", id: "settlement", cursor: ["payment", "refund"] },
  { method: "POST", path: "/v1/test_helpers/settlements/run", scope: "settlements:read", testOnly: true },
  /** The API reference is public, like any API's documentation. */
  { method: "GET", path: "/v1/openapi.json", scope: null },
];

export const ID_ROUTES = ROUTES.filter((r): r is RouteProbe & { id: ObjectKind } => r.id !== undefined);

export const label = (r: Pick<RouteProbe, "method" | "path">) => `${r.method} ${r.path}`;

/** One place a /v1 operation takes an object's id, and the kinds of id it takes there. */
export type IdField = { route: string; where: "path" | "query" | "body"; name: string; kinds: IdKind[] };

/** A field named for an object: it takes an id, whether or not its schema says so with a pattern. */
const NAMED_FOR_AN_OBJECT = /^(id|\w+_id|payment|refund|payment_link|link|checkout_session|session|event|endpoint|webhook_endpoint|delivery|settlement|starting_after|ending_before)$/;

type JsonSchema = { pattern?: string; properties?: Record<string, JsonSchema>; items?: JsonSchema; anyOf?: JsonSchema[]; oneOf?: JsonSchema[]; allOf?: JsonSchema[] };

/** The kinds of id an id pattern matches (`^(pay|re)_…$` is two); a pattern that also takes plain text (a reference's) is no id's. */
const kindsOf = (schema: JsonSchema): IdKind[] => {
  const patterns = [schema, ...(schema.anyOf ?? []), ...(schema.oneOf ?? [])].flatMap((s) => (s.pattern && !new RegExp(s.pattern).test("order-1001") ? [new RegExp(s.pattern)] : []));
  return (Object.keys(ID_PREFIXES) as IdKind[]).filter((k) => patterns.some((re) => re.test(newId(k))));
};

/**
 * Every id a /v1 operation takes, read from the OpenAPI document (made from the zod schemas the
 * handlers parse with): path parameters, query parameters and body fields, nested ones too,
 * whose schema is an id's pattern or whose name names an object. The matrix must cover each.
 */
export function idFields(): IdField[] {
  const doc = openApiDocument("http://localhost:3000") as unknown as {
    paths: Record<string, Record<string, { parameters?: { name: string; in: string; schema?: JsonSchema }[]; requestBody?: { content: Record<string, { schema: JsonSchema }> } }>>;
  };
  const out: IdField[] = [];
  const visit = (route: string, where: IdField["where"], name: string, schema: JsonSchema) => {
    const kinds = kindsOf(schema);
    if (kinds.length > 0 || NAMED_FOR_AN_OBJECT.test(name.slice(name.lastIndexOf(".") + 1))) out.push({ route, where, name, kinds });
    for (const [k, v] of Object.entries(schema.properties ?? {})) visit(route, where, `${name ? `${name}.` : ""}${k}`, v);
    for (const s of [schema.items, ...(schema.allOf ?? []), ...(schema.anyOf ?? []), ...(schema.oneOf ?? [])]) if (s?.properties) visit(route, where, name, { properties: s.properties });
  };
  for (const [path, methods] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(methods)) {
      const route = `${method.toUpperCase()} ${path}`;
      for (const p of op.parameters ?? []) if (p.in === "path" || p.in === "query") visit(route, p.in, p.name, p.schema ?? {});
      const body = op.requestBody?.content["application/json"]?.schema;
      if (body) for (const [k, v] of Object.entries(body.properties ?? {})) visit(route, "body", k, v);
    }
  }
  return out;
}

type Handler = (req: Request, ctx: { params: Promise<Record<string, string>> }) => Promise<Response> | Response;
type RouteModule = Partial<Record<Method | "OPTIONS", Handler>>;

const V1 = path.join(import.meta.dirname, "../../app/v1");

/** `/v1/...` templates of the route files under app/v1, with `[id]` written `{id}` (the catch-all left out). */
function routeFiles(): { template: string; file: string }[] {
  return readdirSync(V1, { recursive: true, encoding: "utf8" })
    .filter((f) => path.basename(f) === "route.ts" && !f.includes("[..."))
    .map((f) => ({ template: `/v1/${path.dirname(f).split(path.sep).join("/")}`.replace(/\[(\w+)\]/g, "{$1}"), file: path.join(V1, f) }));
}

let loaded: Map<string, RouteModule> | undefined;

/** The route modules of the app, by template, loaded from the files themselves. */
export async function routeModules(): Promise<Map<string, RouteModule>> {
  if (loaded) return loaded;
  const out = new Map<string, RouteModule>();
  for (const { template, file } of routeFiles()) out.set(template, (await import(/* @vite-ignore */ file)) as RouteModule);
  return (loaded = out);
}

/** `METHOD /v1/...` for every method a route file serves with a handler of its own (not the shared 404). */
export async function servedRoutes(): Promise<string[]> {
  const served: string[] = [];
  for (const [template, mod] of await routeModules()) {
    for (const method of METHODS) if (mod[method] && mod[method] !== notFoundRoute) served.push(`${method} ${template}`);
  }
  return served.sort();
}

// Tests read into parsed JSON freely, as server/testing/api.ts lets them.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Answer = { status: number; text: string; body: any; headers: Headers };

export type Call = { key?: string | null; id?: string; body?: unknown; query?: Record<string, string>; idempotencyKey?: string; authorization?: string };

let idem = 0;

/**
 * Calls the route file's own handler for `route`, with `{id}` filled in, as Next would after
 * matching: a real Request, the params Next would pass.
 */
export async function callRoute(route: RouteProbe, call: Call): Promise<Answer> {
  const mod = (await routeModules()).get(route.path);
  const handler = mod?.[route.method];
  if (!handler) throw new Error(`no handler for ${label(route)}`);
  const params: Record<string, string> = { ...route.params };
  if (route.id) params.id = call.id ?? "";
  let pathname = route.path;
  for (const [k, v] of Object.entries(params)) pathname = pathname.replace(`{${k}}`, encodeURIComponent(v));
  const url = new URL(pathname, "http://localhost:3000");
  for (const [k, v] of Object.entries(call.query ?? {})) url.searchParams.set(k, v);
  const headers = new Headers();
  if (call.authorization !== undefined) headers.set("authorization", call.authorization);
  else if (call.key) headers.set("authorization", `Bearer ${call.key}`);
  if (call.idempotencyKey) headers.set("idempotency-key", call.idempotencyKey);
  let body: string | undefined;
  if (call.body !== undefined) {
    body = JSON.stringify(call.body);
    headers.set("content-type", "application/json");
  }
  const res = await handler(new Request(url, { method: route.method, headers, body }), { params: Promise.resolve(params) });
  const text = await res.text();
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  holdToDocument(route.method, url.pathname, res.status, parsed);
  return { status: res.status, text, body: parsed, headers: res.headers };
}

/** The route's well-formed request (made with `o`), with a fresh Idempotency-Key where it needs one. */
export function sampleCall(route: RouteProbe, o: Objects, key: string | null, id?: string): Call {
  const r = route.request?.(o) ?? {};
  return { key, id, body: r.body, query: r.query, idempotencyKey: r.idempotency ? `security-${Date.now().toString(36)}-${++idem}` : undefined };
}
