import { beforeAll, describe, expect, it } from "vitest";
import { ID_PREFIXES, idTime, newId, type IdKind } from "@/server/domain/ids";
import { OPERATIONS } from "@/server/openapi";
import { createEndpoint } from "@/server/services/webhooks/create-endpoint";
import { expectError } from "@/server/testing/expect-error";
import { notFoundRoute } from "@/server/http/api-route";
import { callRoute, hourAgo, ID_ROUTES, idFields, label, METHODS, routeModules, ROUTES, sampleCall, servedRoutes, type Answer, type Call, type IdField, type ObjectKind, type RouteProbe } from "./surface";
import { fingerprint, idsOf, seedWorld, statementsOf, type Objects, type World } from "./world";

/**
 * Tenant isolation over the whole /v1 surface: an id of another merchant, or of our own other
 * environment, is exactly as missing as one that never existed (spec §4 rule 5), and asking for
 * it with a mutation changes nothing.
 */

const KIND: Record<ObjectKind, IdKind> = {
  payment: "payment",
  refund: "refund",
  paymentLink: "paymentLink",
  checkoutSession: "checkoutSession",
  event: "event",
  eventReplay: "eventReplay",
  webhookEndpoint: "webhookEndpoint",
  webhookDelivery: "webhookDelivery",
  settlement: "settlement",
};

let w: World;
beforeAll(async () => {
  w = await seedWorld();
});

/** An error body with what must differ taken out: the request id, and the id the caller sent (which the message quotes). */
function comparable(res: Answer, sentId: string) {
  const { request_id: _r, ...error } = res.body.error;
  return { status: res.status, error: { ...error, message: String(error.message).split(sentId).join("<id>") } };
}

/** The kind of id an object of the world is. */
const idKindOf = (k: ObjectKind | "paidPayment"): IdKind => (k === "paidPayment" ? "payment" : KIND[k]);

/**
 * Query parameters that filter a list by an object's id. A filter by id is a condition, not a
 * lookup: another merchant's id, our live id and an id that never existed all match nothing.
 */
const FILTERS: { name: string; path: string; param: string; kind: ObjectKind | "paidPayment"; field: string }[] = [
  { name: "refunds of a payment", path: "/v1/refunds", param: "payment", kind: "paidPayment", field: "payment" },
  { name: "deliveries of an event", path: "/v1/webhook_deliveries", param: "event", kind: "event", field: "event" },
  { name: "deliveries to an endpoint", path: "/v1/webhook_deliveries", param: "endpoint", kind: "webhookEndpoint", field: "endpoint" },
];

let probe = 0;

/** Body fields that name one of our objects: a foreign one is as missing as one that never existed. */
const BODY_IDS: { route: string; field: string; kind: ObjectKind | "paidPayment"; call: (id: string) => Call }[] = [
  { route: "POST /v1/events/{id}/replay", field: "endpoint", kind: "webhookEndpoint", call: (endpoint) => ({ id: w.ours.event, body: { endpoint } }) },
  { route: "POST /v1/events/replay", field: "endpoint", kind: "webhookEndpoint", call: (endpoint) => ({ body: { created_gte: hourAgo(), endpoint } }) },
  { route: "POST /v1/refunds", field: "payment", kind: "paidPayment", call: (payment) => ({ body: { payment, amount: 1 }, idempotencyKey: `refund-probe-${payment}-${++probe}` }) },
];

const CURSORS = ["starting_after", "ending_before"] as const;

describe("the route table", () => {
  it("is every route file and method the app serves under /v1, and nothing else", async () => {
    expect(ROUTES.map(label).sort()).toEqual(await servedRoutes());
  });

  it("covers every id the API takes, in a path, a query or a body, as the OpenAPI document shows them", () => {
    const covered: IdField[] = [
      ...ID_ROUTES.map((r) => ({ route: label(r), where: "path" as const, name: "id", kinds: [KIND[r.id]] })),
      ...ROUTES.flatMap((r) => CURSORS.map((name) => ({ route: label(r), where: "query" as const, name, kinds: (r.cursor ?? []).map((k) => KIND[k]) })).filter((f) => f.kinds.length > 0)),
      ...FILTERS.map((f) => ({ route: `GET ${f.path}`, where: "query" as const, name: f.param, kinds: [idKindOf(f.kind)] })),
      ...BODY_IDS.map((b) => ({ route: b.route, where: "body" as const, name: b.field, kinds: [idKindOf(b.kind)] })),
    ];
    const text = (f: IdField) => `${f.route} ${f.where}:${f.name} (${[...f.kinds].sort().join("|") || "no id pattern"})`;
    expect(covered.map(text).sort()).toEqual(idFields().map(text).sort());
  });

  it("answers every method it does not serve, OPTIONS included, with the 404 envelope and a Request-Id", async () => {
    for (const [template, mod] of await routeModules()) {
      for (const method of [...METHODS, "OPTIONS"] as const) {
        const handler = mod[method];
        expect(handler, `${method} ${template}`).toBeTypeOf("function");
        if (handler !== notFoundRoute) continue;
        const path = template.replace(/\{\w+\}/g, "x");
        const res = await handler(new Request(`http://127.0.0.1${path}`, { method }), { params: Promise.resolve({}) });
        const body = (await res.json()) as { error: { type: string; code: string; request_id: string } };
        expect({ route: `${method} ${template}`, status: res.status, type: body.error.type, code: body.error.code }).toEqual({
          route: `${method} ${template}`,
          status: 404,
          type: "not_found",
          code: "resource_missing",
        });
        expect(res.headers.get("Request-Id")).toBe(body.error.request_id);
      }
    }
  });

  it("gives each operation the scope DESIGN.md's scopes list gives it", () => {
    const declared = Object.fromEntries(OPERATIONS.map((op) => [`${op.method} ${op.path}`, op.scope]));
    for (const r of ROUTES.filter((r) => r.scope !== null)) expect({ route: label(r), scope: declared[label(r)] }).toEqual({ route: label(r), scope: r.scope });
    expect(Object.keys(declared).sort()).toEqual(ROUTES.filter((r) => r.scope !== null).map(label).sort());
  });
});

type IdCase = { name: string; key: (w: World) => string; id: (w: World, kind: ObjectKind) => string; wellFormed: boolean };

const ID_CASES: IdCase[] = [
  { name: "another merchant's object", key: (w) => w.us.keys.test, id: (w, k) => w.theirs[k], wellFormed: true },
  { name: "our object in live mode, asked with the test key", key: (w) => w.us.keys.test, id: (w, k) => w.usLive[k], wellFormed: true },
  { name: "our object in test mode, asked with the live key", key: (w) => w.us.keys.live, id: (w, k) => w.ours[k], wellFormed: true },
  { name: "a random well-formed id", key: (w) => w.us.keys.test, id: (_w, k) => newId(KIND[k]), wellFormed: true },
  { name: "a malformed id", key: (w) => w.us.keys.test, id: (_w, k) => `${ID_PREFIXES[KIND[k]]}_NOT-AN-ID`, wellFormed: false },
];

describe.each(ID_ROUTES.map((r) => [label(r), r] as const))("%s", (_name, route) => {
  it(`answers 404 resource_missing to ${ID_CASES.length} kinds of id it must not serve, identically, and changes nothing`, async () => {
    const before = await fingerprint([w.us.merchant.id, w.them.merchant.id]);
    const seen: { name: string; body: ReturnType<typeof comparable> }[] = [];
    for (const c of ID_CASES) {
      const id = c.id(w, route.id);
      const res = await callRoute(route, { ...sampleCall(route, w.ours, c.key(w), id) });
      expect({ case: c.name, status: res.status }).toEqual({ case: c.name, status: 404 });
      if (route.testOnly && c.key(w) === w.us.keys.live) {
        // A test helper takes no live key, whatever the id: one answer, naming neither the id nor the object.
        const refused = expectError(res, 404, "not_found", "resource_missing", "path");
        expect(refused.message).toContain("test mode only");
        const random = await callRoute(route, sampleCall(route, w.ours, w.us.keys.live, newId(KIND[route.id])));
        expect(comparable(random, "")).toEqual(comparable(res, ""));
        continue;
      }
      expectError(res, 404, "not_found", "resource_missing", "id");
      // Nothing of the object leaks into the refusal.
      for (const field of ["amount", "status", "livemode", "object"]) expect(res.body.error).not.toHaveProperty(field);
      seen.push({ name: c.name, body: comparable(res, id) });
    }
    const [reference, ...rest] = seen.filter((s) => ID_CASES.find((c) => c.name === s.name)!.wellFormed);
    for (const s of rest) expect({ case: s.name, ...s.body }).toEqual({ case: s.name, ...reference!.body });
    expect(await fingerprint([w.us.merchant.id, w.them.merchant.id])).toEqual(before);
  });

  it("asks the database the same statements, in the same order, for those ids as for one that never existed", async () => {
    const asked = (key: string, id: string) => statementsOf(() => callRoute(route, sampleCall(route, w.ours, key, id)));
    for (const c of ID_CASES.filter((c) => c.wellFormed && c.name !== "a random well-formed id")) {
      // Against an id that never existed, asked with the same key (a key may be refused before any
      // lookup: the test helpers take no live key). What a key sends once (its lookup) is sent first.
      const key = c.key(w);
      await callRoute(route, sampleCall(route, w.ours, key, newId(KIND[route.id])));
      const never = await asked(key, newId(KIND[route.id]));
      expect(never.status).toBe(404);
      expect({ case: c.name, ...(await asked(key, c.id(w, route.id))) }).toEqual({ case: c.name, ...never });
      if (key === w.us.keys.test) expect(never.statements.length, "with the test key the lookup goes to the database").toBeGreaterThan(0);
    }
  });

  it("serves our own object in its own environment (the control)", async () => {
    // Deleting is tried on an endpoint of its own, so the routes after it still have ours.
    const id = route.method === "DELETE" ? (await createEndpoint(await w.us.ctx(false), { url: "https://127.0.0.1:9/spare", enabledEvents: ["*"] })).id : w.ours[route.id];
    const res = await callRoute(route, sampleCall(route, w.ours, w.us.keys.test, id));
    expect(res.status, res.text).toBeLessThan(300);
  });
});

describe("test helpers", () => {
  it.each(["fail", "expire", "unknown", "age"])("'%s' on another merchant's or the live environment's payment: 404, nothing moves", async (action) => {
    const route: RouteProbe = { ...ID_ROUTES.find((r) => r.path.startsWith("/v1/test_helpers/payments"))!, params: { action } };
    const before = await fingerprint([w.us.merchant.id, w.them.merchant.id]);
    const bodies = [];
    for (const id of [w.theirs.payment, w.usLive.payment, newId("payment")]) {
      const res = await callRoute(route, { key: w.us.keys.test, id });
      expectError(res, 404, "not_found", "resource_missing", "id");
      bodies.push(comparable(res, id));
    }
    expect(new Set(bodies.map((b) => JSON.stringify(b))).size).toBe(1);
    expect(await fingerprint([w.us.merchant.id, w.them.merchant.id])).toEqual(before);
  });
});

/** GET a list route as us (test key) with a query. */
async function list(path: string, query: Record<string, string>, id?: string) {
  const route = ROUTES.find((r) => r.method === "GET" && r.path === path)!;
  const res = await callRoute(route, { key: w.us.keys.test, query, id });
  expect(res.status, res.text).toBe(200);
  return res;
}

/** Ids of objects we must never see from our test key: the other merchant's and our live ones. */
const foreignIds = () => [...idsOf(w.theirs), ...idsOf(w.usLive)];

function expectNoForeignIds(res: Answer) {
  for (const id of foreignIds()) expect(res.text).not.toContain(id);
}

describe("filters naming foreign objects", () => {
  it.each(FILTERS.map((f) => [f.name, f] as const))("%s: a foreign id lists what a random id lists (nothing), with the same statements", async (_n, f) => {
    const idKind = idKindOf(f.kind);
    const answers = [];
    for (const id of [w.theirs[f.kind], w.usLive[f.kind], newId(idKind)]) {
      const res = await list(f.path, { [f.param]: id });
      expect(res.body).toMatchObject({ object: "list", data: [], has_more: false });
      answers.push(res.body);
    }
    expect(answers[1]).toEqual(answers[0]);
    expect(answers[2]).toEqual(answers[0]);
    const route = ROUTES.find((r) => r.method === "GET" && r.path === f.path)!;
    const asked = (id: string) => statementsOf(() => callRoute(route, { key: w.us.keys.test, query: { [f.param]: id } }));
    const never = await asked(newId(idKind));
    for (const id of [w.theirs[f.kind], w.usLive[f.kind]]) expect(await asked(id)).toEqual(never);
    // The control: the same filter with our own id finds our object.
    const own = await list(f.path, { [f.param]: w.ours[f.kind] });
    expect(own.body.data.length).toBeGreaterThan(0);
    for (const item of own.body.data) expect(item[f.field]).toBe(w.ours[f.kind]);
  });

  it("payment search by another merchant's or the live environment's reference finds nothing, as a made-up one does", async () => {
    const bodies = [];
    for (const search of [w.theirs.reference, w.usLive.reference, "no-such-reference-anywhere"]) {
      const res = await list("/v1/payments", { search });
      expect(res.body.data).toEqual([]);
      bodies.push(res.body);
    }
    expect(new Set(bodies.map((b) => JSON.stringify(b))).size).toBe(1);
    expect((await list("/v1/payments", { search: w.ours.reference })).body.data.map((p: { id: string }) => p.id)).toEqual([w.ours.payment]);
  });

  it("the event log, filtered by type, holds only our test events", async () => {
    const res = await list("/v1/events", { type: "payment.expired", limit: "100" });
    expect(res.body.data.map((e: { id: string }) => e.id)).toContain(w.ours.event);
    expectNoForeignIds(res);
  });

  it("every list, unfiltered, shows none of the other merchant's objects and none of our live ones", async () => {
    for (const route of ROUTES.filter((r) => r.cursor)) {
      const res = await callRoute(route, { key: w.us.keys.test, id: w.ours.settlement, query: { limit: "100" } });
      expect(res.status, label(route)).toBe(200);
      expectNoForeignIds(res);
    }
  });

  it.each(BODY_IDS.map((b) => [`${b.route} with a foreign ${b.field}`, b] as const))(
    "%s: refused as one naming an id that never existed, with the same statements, and nothing written",
    async (_n, b) => {
      const route = ROUTES.find((r) => label(r) === b.route)!;
      const ask = (id: string) => callRoute(route, { key: w.us.keys.test, ...b.call(id) });
      const before = await fingerprint([w.us.merchant.id, w.them.merchant.id]);
      const bodies = [];
      for (const id of [w.theirs[b.kind], w.usLive[b.kind], newId(idKindOf(b.kind))]) {
        const res = await ask(id);
        expectError(res, 404, "not_found", "resource_missing", b.field);
        bodies.push(comparable(res, id));
      }
      expect(new Set(bodies.map((x) => JSON.stringify(x))).size).toBe(1);
      const never = await statementsOf(() => ask(newId(idKindOf(b.kind))));
      for (const id of [w.theirs[b.kind], w.usLive[b.kind]]) expect(await statementsOf(() => ask(id))).toEqual(never);
      expect(await fingerprint([w.us.merchant.id, w.them.merchant.id])).toEqual(before);
    },
  );
});

describe("cursors set to foreign ids", () => {
  /**
   * A cursor names an object (spec §4 rule 5): one of another merchant's, of the other
   * environment, or one that never existed is 404 resource_missing naming the parameter, exactly
   * as an id made at the same millisecond that never existed is; nothing foreign shows. Our own
   * object pages (the control).
   */
  const sameInstant = (id: string, kind: IdKind) => newId(kind, idTime(id));

  it.each(ROUTES.filter((r) => r.cursor).map((r) => [label(r), r] as const))("%s", async (_n, route) => {
    const call = (query: Record<string, string>) => callRoute(route, { key: w.us.keys.test, id: w.ours.settlement, query: { ...query, limit: "100" } });
    for (const cursor of route.cursor!) {
      const kind = KIND[cursor];
      for (const direction of CURSORS) {
        for (const foreign of [w.theirs[cursor], w.usLive[cursor]]) {
          const viaForeign = await call({ [direction]: foreign });
          const random = sameInstant(foreign, kind);
          const viaRandom = await call({ [direction]: random });
          expectError(viaForeign, 404, "not_found", "resource_missing", direction);
          expect({ cursor, ...comparable(viaForeign, foreign) }).toEqual({ cursor, ...comparable(viaRandom, random) });
          // Beyond the id the caller sent itself (which the message quotes), nothing foreign.
          expectNoForeignIds({ ...viaForeign, text: viaForeign.text.split(foreign).join("<id>") });
          // No branch a clock could see: the same statements as for the id that never existed.
          expect({ cursor, ...(await statementsOf(() => call({ [direction]: foreign }))) }).toEqual({ cursor, ...(await statementsOf(() => call({ [direction]: random }))) });
        }
      }
    }
    const [first] = route.cursor!;
    const own = await call({ starting_after: first === "payment" && route.path.includes("{id}") ? w.ours.paidPayment : w.ours[first!] });
    expect(own.status, own.text).toBe(200);
  });
});

/** The objects a test could have asked for by mistake are real and distinct (a guard on the fixtures, so no case passes vacuously). */
it("the world has every kind of object, in both environments and for both merchants", () => {
  const sets: Objects[] = [w.ours, w.usLive, w.theirs];
  for (const o of sets) for (const id of idsOf(o)) expect(id).toMatch(/^[a-z]+_[0-9a-z]{26}$/);
  expect(new Set(sets.flatMap(idsOf)).size).toBe(sets.length * idsOf(w.ours).length);
});
