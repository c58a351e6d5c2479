import { and, eq } from "drizzle-orm";
import { z } from "zod";
import { beforeAll, describe, expect, it } from "vitest";
import { getDb } from "@/db/client";
import { apiKeys, securityEvents, staffUsers } from "@/db/schema";
import { idTime, newId } from "@/server/domain/ids";
import { roleAllows, STAFF_ROLES, type StaffRole } from "@/server/domain/staff";
import { recordSecurityEvent } from "@/server/services/security-log/record-security-event";
import { systemContext } from "@/server/system-context";
import { seedPayment } from "@/server/testing/fixtures";
import type { TrpcContext } from "@/server/trpc/init";
import { STAFF_TEST_PASSWORD, staffContext } from "@/server/trpc/testing";
import { appRouter } from "@/server/trpc/routers/_app";
import { dashboardWire, fingerprint, seedWorld, statementsOf, type Objects, type World } from "./world";

/**
 * The dashboard's half of the matrix, over tRPC's own fetch handler so the answers are what the
 * browser gets. Each area's tests and authorization.test.ts (signed out; viewers and mutations)
 * cover the basics; this walks every procedure that names an object, and every role below each
 * mutation's minimum, with real inputs.
 */

type Procedure = { _def: { type: "query" | "mutation" | "subscription"; inputs: z.ZodType[] } };
const PROCEDURES = Object.entries(appRouter._def.procedures as unknown as Record<string, Procedure>).map(([path, p]) => ({
  path,
  type: p._def.type,
  /** The names of its input's fields, as its zod schema declares them. */
  fields: p._def.inputs.flatMap((i) => Object.keys((z.toJSONSchema(i, { io: "input", unrepresentable: "any" }) as { properties?: object }).properties ?? {})),
}));

/** Extra per-world ids the dashboard names that /v1 does not: API keys, staff members, security log entries. */
type Extra = { apiKey: string; staff: string; securityEvent: string };
type Kind = keyof Omit<Objects, "livemode" | "reference"> | keyof Extra;
type Ids = Omit<Objects, "livemode" | "reference"> & Extra;

const ID_OF: Record<Kind, Parameters<typeof newId>[0]> = {
  payment: "payment",
  paidPayment: "payment",
  refund: "refund",
  paymentLink: "paymentLink",
  checkoutSession: "checkoutSession",
  event: "event",
  eventReplay: "eventReplay",
  webhookEndpoint: "webhookEndpoint",
  webhookDelivery: "webhookDelivery",
  settlement: "settlement",
  apiKey: "apiKey",
  staff: "staffUser",
  securityEvent: "securityEvent",
};

/**
 * Every procedure that takes an object's id, with an input naming `id`. `perEnvironment: false`
 * for staff: a team member belongs to the merchant in both modes, so there is no other
 * environment's staff member to ask for.
 */
const ID_PROCEDURES: Record<string, { kind: Kind; input: (id: string, own: Ids) => unknown; perEnvironment?: false }> = {
  "payments.get": { kind: "payment", input: (id) => ({ id }) },
  "payments.timeline": { kind: "payment", input: (id) => ({ id }) },
  "payments.refund": { kind: "paidPayment", input: (paymentId) => ({ paymentId, amount: 1, idempotencyKey: `probe-${paymentId}` }) },
  "payments.resolve": { kind: "payment", input: (paymentId) => ({ paymentId, outcome: "succeeded", reason: "confirmed with the provider" }) },
  "events.get": { kind: "event", input: (id) => ({ id }) },
  "events.replay": { kind: "event", input: (id) => ({ id }) },
  "events.replay(endpointId)": { kind: "webhookEndpoint", input: (endpointId, own) => ({ id: own.event, endpointId }) },
  "events.replayWindow": { kind: "webhookEndpoint", input: (endpointId) => ({ createdGte: new Date(Date.now() - 3_600_000).toISOString(), endpointId, dryRun: false }) },
  "webhooks.get": { kind: "webhookEndpoint", input: (id) => ({ id }) },
  "webhooks.deliveries": { kind: "webhookEndpoint", input: (endpointId) => ({ endpointId }) },
  "webhooks.update": { kind: "webhookEndpoint", input: (id) => ({ id, description: "taken over", disabled: true }) },
  "webhooks.rollSecret": { kind: "webhookEndpoint", input: (id) => ({ id, confirmPassword: STAFF_TEST_PASSWORD }) },
  "webhooks.delete": { kind: "webhookEndpoint", input: (id) => ({ id }) },
  "webhooks.sendTest": { kind: "webhookEndpoint", input: (id) => ({ id }) },
  "apiKeys.revoke": { kind: "apiKey", input: (id) => ({ id }) },
  "paymentLinks.deactivate": { kind: "paymentLink", input: (id) => ({ id }) },
  "settlements.get": { kind: "settlement", input: (id) => ({ id }) },
  "settlements.lines": { kind: "settlement", input: (id) => ({ id }) },
  "settlements.confirmPayout": { kind: "settlement", input: (id) => ({ id }) },
  "settlements.failPayout": { kind: "settlement", input: (id) => ({ id, reason: "taken over", confirmPassword: STAFF_TEST_PASSWORD }) },
  "staff.changeRole": { kind: "staff", input: (id) => ({ id, role: "viewer", confirmPassword: STAFF_TEST_PASSWORD }), perEnvironment: false },
  "staff.remove": { kind: "staff", input: (id) => ({ id, confirmPassword: STAFF_TEST_PASSWORD }), perEnvironment: false },
  "staff.resetPassword": { kind: "staff", input: (id) => ({ id, confirmPassword: STAFF_TEST_PASSWORD }), perEnvironment: false },
};

const CURSORS = ["startingAfter", "endingBefore"] as const;

/**
 * Every procedure that pages with cursors: the kinds of id its cursors name, and the rest of its
 * input (made with the objects of the mode asked in). `perEnvironment: false` for the security
 * log, which holds both modes' entries.
 */
const CURSOR_PROCEDURES: Record<string, { kinds: Kind[]; input?: (own: Ids) => object; perEnvironment?: false }> = {
  "payments.list": { kinds: ["payment"] },
  "events.list": { kinds: ["event"] },
  "webhooks.list": { kinds: ["webhookEndpoint"] },
  "webhooks.deliveries": { kinds: ["webhookDelivery"], input: (own) => ({ endpointId: own.webhookEndpoint }) },
  "apiKeys.list": { kinds: ["apiKey"] },
  "paymentLinks.list": { kinds: ["paymentLink"] },
  "checkoutSessions.list": { kinds: ["checkoutSession"] },
  "settlements.list": { kinds: ["settlement"] },
  "settlements.lines": { kinds: ["paidPayment", "refund"], input: (own) => ({ id: own.settlement }) },
  "security.list": { kinds: ["securityEvent"], perEnvironment: false },
};

/** Procedures that name no object (the lists' cursors are CURSOR_PROCEDURES'), and why. */
const NO_ID: Record<string, string> = {
  "session.me": "the caller themself",
  "overview.get": "the caller's merchant",
  "payments.list": "list",
  "events.list": "list",
  "events.replays": "list",
  "webhooks.list": "list",
  "webhooks.create": "creates",
  "apiKeys.scopes": "constant",
  "apiKeys.list": "list",
  "apiKeys.create": "creates",
  "paymentLinks.list": "list",
  "paymentLinks.create": "creates",
  "checkoutSessions.list": "list",
  "settlements.list": "list",
  "settings.get": "the caller's merchant",
  "settings.update": "the caller's merchant",
  "staff.list": "list",
  "staff.add": "creates",
  "staff.changePassword": "the caller themself",
  "staff.signOutEverywhere": "the caller themself",
  "security.list": "list",
};

/** The least role each mutation needs (init.ts: viewer reads; developer keys, endpoints, replays, refunds; admin the rest). */
const MIN_ROLE: Record<string, StaffRole> = {
  "payments.refund": "developer",
  "payments.resolve": "admin",
  "events.replay": "developer",
  "events.replayWindow": "developer",
  "webhooks.create": "developer",
  "webhooks.update": "developer",
  "webhooks.rollSecret": "developer",
  "webhooks.delete": "developer",
  "webhooks.sendTest": "developer",
  "apiKeys.create": "developer",
  "apiKeys.revoke": "developer",
  "paymentLinks.create": "developer",
  "paymentLinks.deactivate": "developer",
  "settlements.confirmPayout": "admin",
  "settlements.failPayout": "admin",
  "settings.update": "admin",
  "staff.add": "admin",
  "staff.changeRole": "admin",
  "staff.remove": "admin",
  "staff.resetPassword": "admin",
  "staff.changePassword": "viewer",
  "staff.signOutEverywhere": "viewer",
};

const procedurePath = (name: string) => name.replace(/\(.*\)$/, "");
const typeOf = (name: string) => PROCEDURES.find((p) => p.path === procedurePath(name))!.type as "query" | "mutation";

let w: World;
let ours: Ids;
let usLive: Ids;
let theirs: Ids;

const STAFF_HASH = "scrypt$1$1$1$x$y";

async function extras(merchantId: string, livemode: boolean): Promise<Extra> {
  const db = await getDb();
  const [key] = await db.select().from(apiKeys).where(and(eq(apiKeys.merchantId, merchantId), eq(apiKeys.livemode, livemode)));
  const now = new Date();
  const staff = newId("staffUser", now);
  await db.insert(staffUsers).values({ id: staff, merchantId, email: `member-${staff}@test.mari.test`, passwordHash: STAFF_HASH, role: "developer", createdAt: now });
  await recordSecurityEvent(db, { ...(await systemContext()), actor: { type: "system", job: "test" } }, { merchantId, action: "staff.added", target: { id: staff, label: "member" } });
  const [entry] = await db.select().from(securityEvents).where(and(eq(securityEvents.merchantId, merchantId), eq(securityEvents.targetId, staff)));
  return { apiKey: key!.id, staff, securityEvent: entry!.id };
}

beforeAll(async () => {
  w = await seedWorld();
  ours = { ...w.ours, ...(await extras(w.us.merchant.id, false)) };
  usLive = { ...w.usLive, ...(await extras(w.us.merchant.id, true)) };
  theirs = { ...w.theirs, ...(await extras(w.them.merchant.id, false)) };
});

describe("the procedure tables", () => {
  it("cover every procedure of the dashboard's router", () => {
    const covered = [...Object.keys(ID_PROCEDURES).map(procedurePath), ...Object.keys(NO_ID)];
    expect([...new Set(covered)].sort()).toEqual(PROCEDURES.map((p) => p.path).sort());
  });

  it("cover every id a procedure's input takes: each id field has a case, each pair of cursors a list entry", () => {
    const probe = newId("payment");
    const fieldOf = (input: unknown) => Object.entries(input as Record<string, unknown>).find(([, v]) => v === probe)![0];
    const covered = new Set([
      ...Object.entries(ID_PROCEDURES).map(([name, p]) => `${procedurePath(name)} ${fieldOf(p.input(probe, ours))}`),
      ...Object.keys(CURSOR_PROCEDURES).flatMap((path) => CURSORS.map((c) => `${path} ${c}`)),
    ]);
    const takesAnId = (field: string) => /^(id|\w+Id)$/.test(field) || (CURSORS as readonly string[]).includes(field);
    expect([...covered].sort()).toEqual(PROCEDURES.flatMap((p) => p.fields.filter(takesAnId).map((f) => `${p.path} ${f}`)).sort());
  });

  it("give every mutation its least role", () => {
    expect(Object.keys(MIN_ROLE).sort()).toEqual(PROCEDURES.filter((p) => p.type === "mutation").map((p) => p.path).sort());
  });
});

/** The wire answer with what must differ taken out: the id the caller sent, quoted by the message. */
function comparable(body: any, sentId: string) {
  const error = body.error;
  return { ...error, message: String(error.message).split(sentId).join("<id>") };
}

/** The objects a procedure must not find for our admin: another merchant's, and (where it has them) the other environment's, with the mode each is asked in. */
function foreignCases(p: { kind: Kind; perEnvironment?: false }): { name: string; live: boolean; id: string }[] {
  return [
    { name: "another merchant's", live: false, id: theirs[p.kind] },
    ...(p.perEnvironment === false
      ? []
      : [
          { name: "live object, test mode", live: false, id: usLive[p.kind] },
          { name: "test object, live mode", live: true, id: ours[p.kind] },
        ]),
  ];
}

describe.each(Object.entries(ID_PROCEDURES))("%s", (name, p) => {
  it("answers NOT_FOUND alike to another merchant's object, the other environment's and a random id, and changes nothing", async () => {
    const admin = await staffContext(w.us, "admin", false);
    const adminLive = await staffContext(w.us, "admin", true);
    const cases: { name: string; ctx: TrpcContext; id: string }[] = [
      ...foreignCases(p).map((c) => ({ name: c.name, ctx: c.live ? adminLive : admin, id: c.id })),
      { name: "random id", ctx: admin, id: newId(ID_OF[p.kind]) },
    ];
    const before = await fingerprint([w.us.merchant.id, w.them.merchant.id]);
    const keysBefore = await (await getDb()).select().from(apiKeys).where(eq(apiKeys.id, theirs.apiKey));
    const seen = [];
    for (const c of cases) {
      const res = await dashboardWire(c.ctx, procedurePath(name), typeOf(name), p.input(c.id, c.ctx.livemode ? usLive : ours));
      expect({ case: c.name, status: res.status, code: res.body.error?.data?.code }).toEqual({ case: c.name, status: 404, code: "NOT_FOUND" });
      expect(res.body.error.data.service.code).toBe("resource_missing");
      seen.push({ case: c.name, error: comparable(res.body, c.id) });
    }
    for (const s of seen.slice(1)) expect({ ...s.error, case: s.case }).toEqual({ ...seen[0]!.error, case: s.case });
    expect(await fingerprint([w.us.merchant.id, w.them.merchant.id])).toEqual(before);
    expect(await (await getDb()).select().from(apiKeys).where(eq(apiKeys.id, theirs.apiKey))).toEqual(keysBefore);
  });

  it("asks the database the same statements, in the same order, for those objects as for a random id", async () => {
    const asked = (ctx: TrpcContext, id: string) => statementsOf(() => dashboardWire(ctx, procedurePath(name), typeOf(name), p.input(id, ctx.livemode ? usLive : ours)));
    for (const c of foreignCases(p)) {
      const ctx = await staffContext(w.us, "admin", c.live);
      const never = await asked(ctx, newId(ID_OF[p.kind]));
      expect(never.status).toBe(404);
      expect(never.statements.length, "the lookup goes to the database").toBeGreaterThan(0);
      expect({ case: c.name, ...(await asked(ctx, c.id)) }).toEqual({ case: c.name, ...never });
    }
  });
});

describe.each(Object.entries(CURSOR_PROCEDURES))("%s with a foreign cursor", (path, c) => {
  const inputFor = (live: boolean, cursor: Partial<Record<(typeof CURSORS)[number], string>>) => ({ ...c.input?.(live ? usLive : ours), ...cursor });

  it("answers NOT_FOUND as for an id that never existed, made at the same instant, with the same statements", async () => {
    const contexts = { test: await staffContext(w.us, "admin", false), live: await staffContext(w.us, "admin", true) };
    for (const kind of c.kinds) {
      for (const f of foreignCases({ kind, perEnvironment: c.perEnvironment })) {
        const ctx = f.live ? contexts.live : contexts.test;
        for (const cursor of CURSORS) {
          const ask = (id: string) => dashboardWire(ctx, path, "query", inputFor(f.live, { [cursor]: id }));
          const random = newId(ID_OF[kind], idTime(f.id));
          const [viaForeign, viaRandom] = [await ask(f.id), await ask(random)];
          const which = { kind, cursor, case: f.name };
          expect({ ...which, status: viaForeign.status, code: viaForeign.body.error?.data?.service?.code }).toEqual({ ...which, status: 404, code: "resource_missing" });
          expect({ ...which, error: comparable(viaForeign.body, f.id) }).toEqual({ ...which, error: comparable(viaRandom.body, random) });
          expect({ ...which, ...(await statementsOf(() => ask(f.id))) }).toEqual({ ...which, ...(await statementsOf(() => ask(random))) });
        }
      }
    }
  });

  it("pages from our own object (the control)", async () => {
    const res = await dashboardWire(await staffContext(w.us, "admin", false), path, "query", inputFor(false, { startingAfter: ours[c.kinds[0]!] }));
    expect(res.status, JSON.stringify(res.body)).toBe(200);
  });
});

describe("roles below a mutation's minimum", () => {
  /** Real inputs on our own objects: were the role check missing, each would change something. */
  const realInput = async (path: string): Promise<unknown> => {
    const unresolved = await seedPayment(w.us, "unresolved");
    const inputs: Record<string, unknown> = {
      "payments.refund": { paymentId: ours.paidPayment, amount: 1, idempotencyKey: `role-probe-${Date.now()}-refund` },
      "payments.resolve": { paymentId: unresolved.id, outcome: "succeeded", reason: "confirmed with the provider" },
      "events.replay": { id: ours.event },
      "events.replayWindow": { createdGte: new Date(Date.now() - 3_600_000).toISOString(), dryRun: false },
      "webhooks.create": { url: "https://127.0.0.1:9/role-probe", enabledEvents: ["*"] },
      "webhooks.update": { id: ours.webhookEndpoint, disabled: true },
      "webhooks.rollSecret": { id: ours.webhookEndpoint },
      "webhooks.delete": { id: ours.webhookEndpoint },
      "webhooks.sendTest": { id: ours.webhookEndpoint },
      "apiKeys.create": { kind: "secret" },
      "apiKeys.revoke": { id: ours.apiKey },
      "paymentLinks.create": { amount: 100, currency: "USD", description: "role probe" },
      "paymentLinks.deactivate": { id: ours.paymentLink },
      "settlements.confirmPayout": { id: ours.settlement },
      "settlements.failPayout": { id: ours.settlement, reason: "role probe" },
      "settings.update": { feeBearer: "customer" },
      "staff.add": { email: `probe-${Date.now()}@test.mari.test`, role: "admin" },
      "staff.changeRole": { id: ours.staff, role: "admin" },
      "staff.remove": { id: ours.staff },
      "staff.resetPassword": { id: ours.staff },
      "staff.changePassword": { current: "not the current one", password: "a long new passphrase" },
      "staff.signOutEverywhere": {},
    };
    return inputs[path];
  };

  const below = Object.entries(MIN_ROLE).flatMap(([path, min]) => STAFF_ROLES.filter((r) => !roleAllows(r, min)).map((role) => [path, role, min] as const));

  it.each(below)("%s refuses a %s (needs %s) and changes nothing", async (path, role) => {
    const ctx = await staffContext(w.us, role, false);
    const input = await realInput(path);
    const before = await fingerprint([w.us.merchant.id]);
    const keys = await (await getDb()).select().from(apiKeys).where(eq(apiKeys.merchantId, w.us.merchant.id));
    const res = await dashboardWire(ctx, path, "mutation", input);
    expect({ status: res.status, code: res.body.error?.data?.code }).toEqual({ status: 403, code: "FORBIDDEN" });
    expect(await fingerprint([w.us.merchant.id])).toEqual(before);
    const db = await getDb();
    expect(await db.select().from(apiKeys).where(eq(apiKeys.merchantId, w.us.merchant.id))).toEqual(keys);
    if (path.startsWith("staff.")) expect((await db.select().from(staffUsers).where(eq(staffUsers.id, ours.staff)))[0]).toMatchObject({ role: "developer", passwordHash: STAFF_HASH, sessionsRevokedAt: null });
  });

  it.each(Object.entries(MIN_ROLE))("%s lets its least role (%s) past the role check (the control)", async (path, min) => {
    const ctx = await staffContext(w.us, min, false);
    // A random id where it names one: past the role check without spending our objects.
    const input = JSON.parse(JSON.stringify(await realInput(path)).replace(/"(pay|evt|we|key|plink|stl|usr)_[0-9a-z]{26}"/g, (_m, prefix: string) => `"${prefix}_${"0".repeat(26)}"`));
    const res = await dashboardWire(ctx, path, "mutation", input);
    expect(res.body.error?.data?.code ?? "OK").not.toBe("FORBIDDEN");
  });
});
