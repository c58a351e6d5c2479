import { createHash } from "node:crypto";
import { and, eq } from "drizzle-orm";
import { sql } from "drizzle-orm";
import { beforeAll, describe, expect, it, vi } from "vitest";
import { getDb } from "@/db/client";
import { rowsOf } from "@/db/rows";
import { apiKeys } from "@/db/schema";
import { SCOPES, type Scope } from "@/server/domain/api-keys";
import { signatureHeader, verifySignatureHeader } from "@/server/domain/signatures";
import { revokeApiKey } from "@/server/services/api-keys/revoke-api-key";
import { systemClock } from "@/server/clock";
import { expectError } from "@/server/testing/expect-error";
import { STAFF_TEST_PASSWORD, dashboardAs } from "@/server/trpc/testing";
import { callRoute, label, ROUTES, sampleCall, type Answer, type RouteProbe } from "./surface";
import { idsOf, seedWorld, type World } from "./world";

// Every comparison of a presented secret goes through node's constant-time compare; watched here.
vi.mock("node:crypto", async (importOriginal) => {
  const actual = await importOriginal<typeof import("node:crypto")>();
  return { ...actual, timingSafeEqual: vi.fn(actual.timingSafeEqual) };
});
const { timingSafeEqual } = await import("node:crypto");

/**
 * Spec §5 and §7: a missing or invalid key is 401 `authentication_error`, a valid key lacking
 * the scope 403 `permission_error`; DESIGN.md names the scopes. Tried on every /v1 route and
 * method, with a well-formed request, so nothing but the key decides the answer.
 */

let w: World;
let revoked: string;
beforeAll(async () => {
  w = await seedWorld();
  const db = await getDb();
  revoked = await w.us.restrictedKey([...SCOPES]);
  // Used once, so it sits in the key cache; revocation must still win at once.
  expect((await callRoute(ROUTES.find((r) => label(r) === "GET /v1/payments")!, { key: revoked })).status).toBe(200);
  const [row] = await db.select().from(apiKeys).where(eq(apiKeys.hash, createHash("sha256").update(revoked).digest("hex")));
  await revokeApiKey({ db, clock: systemClock, merchant: w.us.merchant, actor: { type: "system", job: "test" } }, row!.id);
});

const AUTHENTICATED = ROUTES.filter((r): r is RouteProbe & { scope: Scope } => r.scope !== null);

type KeyCase = { name: string; key: () => string | null };

const INVALID_KEYS: KeyCase[] = [
  { name: "no key", key: () => null },
  { name: "a malformed key", key: () => "sk_test_not-a-key" },
  { name: "an unknown test key", key: () => `sk_test_${"a".repeat(32)}` },
  { name: "an unknown live key", key: () => `sk_live_${"b".repeat(32)}` },
  { name: "an unknown restricted key", key: () => `rk_test_${"c".repeat(32)}` },
  { name: "a revoked key", key: () => revoked },
];

describe.each(AUTHENTICATED.map((r) => [label(r), r] as const))("%s", (_name, route) => {
  it(`answers 401 authentication_error to ${INVALID_KEYS.length} kinds of invalid key, all alike`, async () => {
    const messages = new Set<string>();
    for (const c of INVALID_KEYS) {
      const res = await callRoute(route, sampleCall(route, w.ours, c.key(), w.ours[route.id ?? "payment"]));
      expect({ key: c.name, status: res.status }).toEqual({ key: c.name, status: 401 });
      messages.add(expectError(res, 401, "authentication_error", "api_key_invalid").message);
    }
    // "No API key provided" for none; the same words for every key that does not work.
    expect(messages.size).toBeLessThanOrEqual(2);
  });

  it(`answers 403 permission_error to a restricted key holding every scope but ${route.scope}`, async () => {
    const key = await w.us.restrictedKey(SCOPES.filter((s) => s !== route.scope));
    const res = await callRoute(route, sampleCall(route, w.ours, key, w.ours[route.id ?? "payment"]));
    expect(expectError(res, 403, "permission_error", "scope_missing").message).toContain(route.scope);
  });

  it(`lets a restricted key holding only ${route.scope} past authentication and scope (the control)`, async () => {
    const key = await w.us.restrictedKey([route.scope]);
    // A random id for routes that name one: past the key checks, without touching our objects.
    const res = await callRoute(route, sampleCall(route, w.ours, key, `${w.ours[route.id ?? "payment"].split("_")[0]}_${"0".repeat(26)}`));
    expect([401, 403], res.text).not.toContain(res.status);
  });

  it("gives another merchant's valid live key nothing of ours", async () => {
    const call = sampleCall(route, w.ours, w.them.keys.live, w.ours[route.id ?? "payment"]);
    const res = await callRoute(route, call);
    if (route.id || route.refersToOurs || route.testOnly) {
      expectError(res, 404, "not_found", "resource_missing", route.testOnly ? "path" : route.id ? "id" : "payment");
    } else {
      expect(res.status, res.text).toBeLessThan(300);
      if (res.body.livemode !== undefined) expect(res.body.livemode).toBe(true);
    }
    // The refusal quotes the id it was sent; beyond that, none of our ids.
    const sent = new Set([call.id, ...Object.values((call.body ?? {}) as Record<string, unknown>)]);
    for (const id of [...idsOf(w.ours), ...idsOf(w.usLive)].filter((id) => !sent.has(id))) expect(res.text).not.toContain(id);
  });
});

it("the API reference is public: every key, or none, gets the same document", async () => {
  const route = ROUTES.find((r) => r.scope === null)!;
  const answers: Answer[] = [];
  for (const key of [null, "sk_test_not-a-key", w.us.keys.test]) answers.push(await callRoute(route, { key }));
  for (const a of answers) expect(a.status).toBe(200);
  expect(new Set(answers.map((a) => a.text)).size).toBe(1);
});

/** Which tables, if any, hold `needle` anywhere in a row (every column, as text). */
async function tablesHolding(needle: string): Promise<string[]> {
  const db = await getDb();
  const tables = rowsOf<{ table_name: string }>(
    await db.execute(sql`select table_name from information_schema.tables where table_schema = 'public' and table_type = 'BASE TABLE'`),
  ).map((t) => t.table_name);
  const found: string[] = [];
  for (const table of tables) {
    const [row] = rowsOf<{ n: string | number }>(
      await db.execute(sql`select count(*) as n from ${sql.identifier(table)} t where strpos(t::text, ${needle}) > 0`),
    );
    if (Number(row!.n) > 0) found.push(table);
  }
  return found.sort();
}

describe("secrets at rest", () => {
  it("API keys: no column of any table holds a key, only its SHA-256; lookup is by hash, so no key is ever compared", async () => {
    const developer = await dashboardAs(w.us, "developer");
    const live = await dashboardAs(w.us, "developer", true);
    const made = [
      await developer.apiKeys.create({ kind: "secret" }),
      await developer.apiKeys.create({ kind: "restricted", scopes: ["payments:read"] }),
      await live.apiKeys.create({ kind: "secret", confirmPassword: STAFF_TEST_PASSWORD }),
    ];
    const db = await getDb();
    for (const { key, secret } of made) {
      // The key works, so it was stored somehow: as its hash, which is what authentication looks up.
      const route = ROUTES.find((r) => label(r) === "GET /v1/payments")!;
      expect((await callRoute(route, { key: secret })).status).toBe(200);
      const [row] = await db.select().from(apiKeys).where(and(eq(apiKeys.id, key.id), eq(apiKeys.hash, createHash("sha256").update(secret).digest("hex"))));
      expect(row).toBeDefined();
      // Neither the key nor its random part is anywhere in the database.
      expect(await tablesHolding(secret)).toEqual([]);
      expect(await tablesHolding(secret.slice(secret.lastIndexOf("_") + 1))).toEqual([]);
    }
  });

  /**
   * Webhook signing secrets cannot be hashed: every delivery is an HMAC keyed with the secret
   * itself. They are stored sealed (AES-256-GCM, db/schema/columns.ts sealedText), and so is the
   * idempotency record of a create or roll, which must replay the answer byte for byte: no table
   * holds a secret in a form that can be read without the data key, and reads never show it.
   */
  it("webhook secrets: no table holds one readable, a keyed create or roll replays it, and reads never show it", async () => {
    const create = ROUTES.find((r) => label(r) === "POST /v1/webhook_endpoints")!;
    const roll = ROUTES.find((r) => label(r) === "POST /v1/webhook_endpoints/{id}/roll_secret")!;
    const get = ROUTES.find((r) => label(r) === "GET /v1/webhook_endpoints/{id}")!;
    const listAll = ROUTES.find((r) => label(r) === "GET /v1/webhook_endpoints")!;

    const plain = await callRoute(create, { key: w.us.keys.test, body: { url: "https://127.0.0.1:9/at-rest", enabled_events: ["*"] } });
    expect(plain.status).toBe(201);
    const first: string = plain.body.secret;
    expect(first).toMatch(/^whsec_/);
    expect(await tablesHolding(first)).toEqual([]);
    expect(await tablesHolding(first.slice("whsec_".length))).toEqual([]);

    const rollOnce = () => callRoute(roll, { key: w.us.keys.test, id: plain.body.id, idempotencyKey: `roll-${plain.body.id}` });
    const rolled = await rollOnce();
    const second: string = rolled.body.secret;
    expect(second).not.toBe(first);
    expect(await tablesHolding(second)).toEqual([]);
    expect(await tablesHolding(first)).toEqual([]);
    const replayed = await rollOnce();
    expect(replayed.headers.get("idempotent-replayed")).toBe("true");
    expect(replayed.text).toBe(rolled.text);

    for (const res of [await callRoute(get, { key: w.us.keys.test, id: plain.body.id }), await callRoute(listAll, { key: w.us.keys.test, query: { limit: "100" } })]) {
      expect(res.status).toBe(200);
      expect(res.text).not.toContain(first);
      expect(res.text).not.toContain(second);
    }
  });

  it("webhook signatures are compared in constant time", () => {
    const body = JSON.stringify({ id: "evt_x" });
    const t = Math.floor(Date.now() / 1000);
    vi.mocked(timingSafeEqual).mockClear();
    expect(verifySignatureHeader(signatureHeader(["whsec_right"], t, body), body, ["whsec_right"], new Date())).toBe(true);
    expect(verifySignatureHeader(signatureHeader(["whsec_wrong"], t, body), body, ["whsec_right"], new Date())).toBe(false);
    // Both answers came from timingSafeEqual, the wrong one included: no early-exit string compare.
    expect(vi.mocked(timingSafeEqual).mock.calls.length).toBeGreaterThanOrEqual(2);
  });
});
