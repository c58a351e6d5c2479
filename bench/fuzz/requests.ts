/**
 * The fuzzer's requests: for every /v1 operation a fast-check arbitrary of requests that are
 * wrong in at least one way the generator can name, plus one target for the methods and paths
 * no operation serves. Whether a request is really wrong is worked out from what goes on the
 * wire (`invalidity`), never assumed from how it was made.
 */
import fc from "fast-check";
import { ID_PREFIXES, type IdKind } from "@/server/domain/ids";
import { OPERATIONS } from "@/server/openapi";
import type { Operation } from "@/server/schemas/common";
import { mutateValue, ODD_STRINGS, rawJsonNasty } from "./mutations";
import { validShaped } from "./schema-arbitrary";

export type Body =
  | { kind: "none" }
  | { kind: "text"; text: string; contentType?: string }
  /** Bytes as hex: what no text encoding makes (invalid UTF-8). */
  | { kind: "bytes"; hex: string; contentType?: string }
  /** A large body made at send time; `chunked` sends it with no Content-Length. */
  | { kind: "huge"; prefix: string; fill: string; bytes: number; suffix: string; chunked: boolean; contentType?: string };

export type FuzzRequest = {
  method: string;
  /** Percent-encoded path, as it goes on the request line. */
  path: string;
  /** Query string without `?`, as it goes on the request line ("" for none). */
  query: string;
  headers: Record<string, string | string[]>;
  body: Body;
  /** What was done to the request, in words, for the failure report. */
  notes: string[];
};

/** The key the fuzzer authenticates with, and optionally a restricted key (payments:read) to be refused scopes with. */
export type Keys = { key: string; restricted?: string };
/** Ids of real objects of the fuzz merchant, so that some requests reach objects that exist. */
export type RealIds = Partial<Record<IdKind, string>>;

export type Target = { name: string; op?: Operation; arbitrary: (keys: Keys, ids: RealIds) => fc.Arbitrary<FuzzRequest> };

/**
 * A path whose percent-encoding does not decode to UTF-8 (`%ff`, `%`, a lone surrogate's bytes).
 * Next 16.4.5 cannot route such a request (its router meets the decode error and answers a
 * plain-text 500), so proxy.ts answers it first: 400 parameter_invalid in the envelope.
 */
export function malformedPath(path: string): boolean {
  return path.split("/").some((seg) => {
    try {
      decodeURIComponent(seg);
      return false;
    } catch {
      return true;
    }
  });
}

const ALPHABET = "0123456789abcdefghjkmnpqrstvwxyz";

/**
 * Percent-encoding that also takes lone surrogates, which encodeURIComponent refuses: they go as
 * the three bytes a lenient encoder would write (invalid UTF-8, for the server to cope with).
 */
export function enc(s: string): string {
  let out = "";
  for (const ch of s) {
    const cp = ch.codePointAt(0)!;
    if (cp >= 0xd800 && cp <= 0xdfff) out += [0xe0 | (cp >> 12), 0x80 | ((cp >> 6) & 0x3f), 0x80 | (cp & 0x3f)].map((b) => `%${b.toString(16).toUpperCase()}`).join("");
    else out += encodeURIComponent(ch);
  }
  return out;
}
const TEST_ACTIONS = ["succeed", "fail", "expire", "unknown", "age"];

/** The kind of id a path's `{id}` names. */
export function idKindOf(path: string): IdKind {
  const table: [RegExp, IdKind][] = [
    [/^\/v1\/(test_helpers\/)?payments\//, "payment"],
    [/^\/v1\/refunds\//, "refund"],
    [/^\/v1\/payment_links\//, "paymentLink"],
    [/^\/v1\/checkout_sessions\//, "checkoutSession"],
    [/^\/v1\/events\//, "event"],
    [/^\/v1\/event_replays\//, "eventReplay"],
    [/^\/v1\/webhook_endpoints\//, "webhookEndpoint"],
    [/^\/v1\/settlements\//, "settlement"],
  ];
  const found = table.find(([re]) => re.test(path));
  if (!found) throw new Error(`no id kind for ${path}`);
  return found[1];
}

const idBody = fc.string({ unit: fc.constantFrom(...ALPHABET), minLength: 26, maxLength: 26 });
const wellFormedId = (kind: IdKind) => idBody.map((b) => `${ID_PREFIXES[kind]}_${b}`);

/** Path segments that name nothing: other kinds' ids, wrong lengths, odd unicode, huge. */
function oddSegment(kind: IdKind): fc.Arbitrary<{ raw: string; note: string }> {
  return fc.oneof(
    wellFormedId(kind).map((id) => ({ raw: enc(id), note: `unknown id ${id}` })),
    fc.constantFrom(...(Object.keys(ID_PREFIXES) as IdKind[])).chain((k) => wellFormedId(k).map((id) => ({ raw: enc(id), note: `id of another kind ${id}` }))),
    wellFormedId(kind).map((id) => ({ raw: enc(id.toUpperCase()), note: "upper-case id" })),
    wellFormedId(kind).map((id) => ({ raw: enc(`${id}x`), note: "id one character long" })),
    wellFormedId(kind).map((id) => ({ raw: enc(id.slice(0, -1)), note: "id one character short" })),
    fc.constantFrom(...ODD_STRINGS.filter((s) => s.trim() !== "")).map((s) => ({ raw: enc(s), note: `odd text ${JSON.stringify(s)}` })),
    fc.integer({ min: 300, max: 6_000 }).map((n) => ({ raw: "a".repeat(n), note: `${n}-character id` })),
    fc.constantFrom("%00", "pay_%00", "%ff", "%c0%80", "%ed%a0%80", "%e2%80%ae", "%", "%zz", "%25", "..%2f..%2f").map((raw) => ({ raw, note: `encoded ${raw}` })),
    fc.string({ unit: "binary", minLength: 1, maxLength: 40 }).map((s) => ({ raw: enc(s), note: "random unicode" })),
  );
}

const authHeader = (key: string) => ({ authorization: `Bearer ${key}` });

/** Authorization headers that authenticate no one. */
function badAuth(keys: Keys): fc.Arbitrary<{ headers: Record<string, string>; note: string }> {
  const secret = fc.string({ unit: fc.constantFrom(...ALPHABET), minLength: 32, maxLength: 32 });
  return fc.oneof(
    fc.constant({ headers: {}, note: "no Authorization" }),
    fc.constantFrom("Bearer", "Bearer ", "Token abc", "Basic", "Basic !!!", "Digest x", "bearer\tsk_test_", "Bearer sk_test_", `Bearer ${keys.key.toUpperCase()}`, `Bearer ${keys.key}x`, `Bearer ${keys.key.slice(0, -1)}`, `Bearer ${keys.key} ${keys.key}`).map((a) => ({ headers: { authorization: a }, note: `Authorization ${JSON.stringify(a.slice(0, 40))}` })),
    secret.map((s) => ({ headers: authHeader(`sk_test_${s}`), note: "unknown test key" })),
    secret.map((s) => ({ headers: authHeader(`rk_live_${s}`), note: "unknown restricted live key" })),
    secret.map((s) => ({ headers: { authorization: `Basic ${Buffer.from(`sk_test_${s}:`).toString("base64")}` }, note: "unknown key as Basic user" })),
    fc.integer({ min: 500, max: 6_000 }).map((n) => ({ headers: authHeader("k".repeat(n)), note: `${n}-character key` })),
  );
}

/** Idempotency-Key values the spec refuses (latin-1 text is what a header can carry at all). */
const badIdempotencyKey = fc.oneof(
  fc.integer({ min: 256, max: 6_000 }).map((n) => ({ value: "k".repeat(n) as string | string[], note: `${n}-character Idempotency-Key` })),
  fc.constantFrom("a b", "key\twith tab", "clé", "ÿ", "\u00a0key", "a,b").map((v) => ({ value: v as string | string[], note: `Idempotency-Key ${JSON.stringify(v)}` })),
  fc.constant({ value: ["one", "two"] as string | string[], note: "two Idempotency-Key headers" }),
);

/** A key unlikely to meet another request's: its own uuid. */
const freshIdempotencyKey = fc.uuid().map((u) => `fuzz-${u}`);

/** Query strings that no list takes: repeated and bracketed names, odd unicode, long values. */
function rawQueryNasty(validQuery: Record<string, unknown>): fc.Arbitrary<{ query: string; note: string }> {
  const names = Object.keys(validQuery).length ? Object.keys(validQuery) : ["limit"];
  const q = (pairs: [string, string][]) => pairs.map(([k, v]) => `${enc(k)}=${enc(v)}`).join("&");
  return fc.oneof(
    fc.constantFrom(...names).map((n) => ({ query: q([[n, "1"], [n, "2"]]), note: `${n} twice` })),
    fc.constantFrom(...names).map((n) => ({ query: `${enc(`${n}[]`)}=1&${enc(`${n}[]`)}=2`, note: `${n}[] array` })),
    fc.constantFrom(...names).map((n) => ({ query: `${enc(`${n}[0]`)}=1`, note: `${n}[0]` })),
    fc.constantFrom("__proto__", "constructor", "hasOwnProperty", "", "limit[gte]", "created", "created[gt]", "expand[]", "LIMIT").map((n) => ({ query: q([[n, "1"]]), note: `parameter ${JSON.stringify(n)}` })),
    fc.constantFrom("limit=-1", "limit=0", "limit=101", "limit=1e2", "limit=1.0", "limit=%201", "limit=0x10", "limit=99999999999999999999", "limit=NaN", "limit=", "limit", "limit=%00", "limit=%ff", "limit=%", "limit=1%00").map((s) => ({ query: s, note: s })),
    fc.constantFrom(...ODD_STRINGS).map((s) => ({ query: q([["starting_after", s]]), note: `starting_after ${JSON.stringify(s)}` })),
    fc.integer({ min: 1_000, max: 6_000 }).map((n) => ({ query: q([[names[0]!, "x".repeat(n)]]), note: `${n}-character ${names[0]}` })),
  );
}

const ODD_CONTENT_TYPES = ["text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x", "application/json5", "application/jsonx", "text/json", "application/xml", "application/vnd.api+json", "*/*", "json", "application", ""];

/** Bodies that go wrong before any schema sees them: type, size, encoding, syntax. */
function rawBodyNasty(valid: unknown): fc.Arbitrary<{ body: Body; note: string }> {
  const json = JSON.stringify(valid ?? {});
  return fc.oneof(
    { weight: 3, arbitrary: rawJsonNasty(valid).map(({ text, note }) => ({ body: { kind: "text", text } as Body, note })) },
    {
      weight: 2,
      arbitrary: fc.constantFrom(...ODD_CONTENT_TYPES).map((ct) => ({ body: { kind: "text", text: json === "{}" ? '{"a":1}' : json, contentType: ct } as Body, note: `Content-Type ${JSON.stringify(ct)}` })),
    },
    {
      weight: 2,
      arbitrary: fc
        .tuple(fc.constantFrom(65 * 1024, 256 * 1024, 1024 * 1024), fc.boolean(), fc.constantFrom("x", "é", "💸", "\\u0000"))
        .map(([bytes, chunked, fill]) => ({
          body: { kind: "huge", prefix: '{"reference":"', fill, bytes, suffix: '"}', chunked } as Body,
          note: `${Math.round(bytes / 1024)} KB string${chunked ? ", chunked" : ""}`,
        })),
    },
    {
      weight: 1,
      arbitrary: fc.constantFrom("ff", "c0af", "eda080", "f4908080", "80", "fe", `7b22613a22${"c3"}227d`).map((hex) => ({ body: { kind: "bytes", hex } as Body, note: `invalid UTF-8 ${hex}` })),
    },
  );
}

/** One operation's requests: the base request is right except for the defects chosen. */
function operationTarget(op: Operation): Target {
  const name = `${op.method} ${op.path}`;
  return {
    name,
    op,
    arbitrary(keys, ids) {
      const params = [...op.path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!);
      const kind = params.includes("id") ? idKindOf(op.path) : undefined;
      const real = kind ? ids[kind] : undefined;
      const body = op.body ? validShaped(op.body) : fc.constant(undefined);
      const query = op.query ? (validShaped(op.query) as fc.Arbitrary<Record<string, unknown>>) : fc.constant({});
      const restrictedDenied = keys.restricted !== undefined && op.scope !== "payments:read";

      type Defect = "body" | "bodyRaw" | "query" | "queryRaw" | "extraQuery" | "extraBody" | "path" | "idempotency" | "auth" | "scope";
      const defects: { weight: number; arbitrary: fc.Arbitrary<Defect> }[] = [];
      const add = (weight: number, d: Defect) => defects.push({ weight, arbitrary: fc.constant(d) });
      if (op.method === "POST" && op.body) add(8, "body");
      if (op.method === "POST") add(4, "bodyRaw");
      if (op.method === "POST" && !op.body) add(3, "extraBody");
      if (op.query) add(6, "query");
      if (op.query) add(3, "queryRaw");
      if (!op.query) add(2, "extraQuery");
      if (params.length > 0) add(4, "path");
      if (op.idempotency !== "none") add(2, "idempotency");
      add(1, "auth");
      if (restrictedDenied) add(1, "scope");

      return fc
        .record({
          defects: fc.uniqueArray(fc.oneof(...defects), { minLength: 1, maxLength: 2 }),
          body,
          query,
          idemKey: freshIdempotencyKey,
          sendIdem: fc.boolean(),
          pathId: kind ? oddSegment(kind) : fc.constant(undefined),
          realAction: fc.constantFrom(...TEST_ACTIONS),
          oddAction: fc.oneof(fc.constantFrom("SUCCEED", "succeed ", "refund", "succeed%00", "capture"), fc.string({ unit: fc.constantFrom(...ALPHABET), minLength: 1, maxLength: 12 })),
          noise: fc.subarray(["accept", "ua", "xff", "ct-on-get"] as const),
        })
        .chain((r) => {
          type Part = { body?: Body; query?: string; drop?: string[]; headers?: Record<string, string | string[]>; notes: string[] };
          const parts: fc.Arbitrary<Part>[] = [];
          for (const d of r.defects) {
            if (d === "body") parts.push(mutateValue(op.body!, r.body).map((m) => ({ body: { kind: "text", text: JSON.stringify(m.value) ?? "" }, notes: [m.note] })));
            if (d === "bodyRaw") parts.push(rawBodyNasty(r.body).map((n) => ({ body: n.body, notes: [n.note] })));
            if (d === "extraBody")
              parts.push(
                fc.oneof(fc.jsonValue({ maxDepth: 2 }).filter((v) => !(v !== null && typeof v === "object" && !Array.isArray(v) && Object.keys(v).length === 0)), fc.constant({ amount: 100 })).map((v) => ({
                  body: { kind: "text", text: JSON.stringify(v) },
                  notes: [`body on a bodiless operation: ${JSON.stringify(v).slice(0, 60)}`],
                })),
              );
            if (d === "query")
              parts.push(
                mutateValue(op.query!, r.query).map((m) => ({ query: toQueryString(m.value), notes: [m.note] })),
              );
            if (d === "queryRaw") parts.push(rawQueryNasty(r.query).map((n) => ({ query: n.query, notes: [n.note] })));
            if (d === "extraQuery") parts.push(rawQueryNasty({ limit: "10" }).map((n) => ({ query: n.query, notes: [`query on an operation without one: ${n.note}`] })));
            if (d === "auth") parts.push(badAuth(keys).map((a) => ({ drop: ["authorization"], headers: a.headers, notes: [a.note] })));
            if (d === "scope") parts.push(fc.constant({ headers: authHeader(keys.restricted!), notes: ["restricted key without the scope"] }));
            if (d === "idempotency") {
              parts.push(
                op.idempotency === "required"
                  ? fc.oneof(badIdempotencyKey, fc.constant({ value: "" as string | string[], note: "no Idempotency-Key" })).map((k): Part => ({
                      drop: ["idempotency-key"],
                      headers: k.value === "" ? {} : { "idempotency-key": k.value },
                      notes: [k.note],
                    }))
                  : badIdempotencyKey.map((k) => ({ drop: ["idempotency-key"], headers: { "idempotency-key": k.value }, notes: [k.note] })),
              );
            }
            if (d === "path") parts.push(fc.constant({ notes: [] }));
          }
          return fc.tuple(...parts).map((ps) => {
            const defectPath = r.defects.includes("path");
            const segments: Record<string, string> = {};
            const notes: string[] = [`defects: ${r.defects.join(", ")}`];
            if (params.includes("id")) {
              if (defectPath || !real) {
                segments.id = r.pathId!.raw;
                notes.push(r.pathId!.note);
              } else segments.id = real;
            }
            if (params.includes("action")) {
              const odd = defectPath && (real !== undefined || r.realAction === "age");
              segments.action = odd ? enc(r.oddAction) : r.realAction;
              if (odd) notes.push(`action ${JSON.stringify(r.oddAction)}`);
            }
            const headers: Record<string, string | string[]> = { ...authHeader(keys.key) };
            if (op.idempotency === "required" || (op.idempotency === "optional" && r.sendIdem)) headers["idempotency-key"] = r.idemKey;
            let bodyOut: Body = op.method === "POST" && op.body ? { kind: "text", text: JSON.stringify(r.body) } : { kind: "none" };
            let queryOut = op.query ? toQueryString(r.query) : "";
            for (const p of ps) {
              if (p.body) bodyOut = p.body;
              if (p.query !== undefined) queryOut = p.query;
              for (const h of p.drop ?? []) delete headers[h];
              Object.assign(headers, p.headers ?? {});
              notes.push(...p.notes);
            }
            if (bodyOut.kind !== "none") {
              const type = bodyOut.contentType ?? "application/json";
              if (type !== "") headers["content-type"] = type;
            }
            if (r.noise.includes("accept")) headers.accept = "text/html;q=0.9, */*;q=0.1";
            if (r.noise.includes("ua")) headers["user-agent"] = "fuzz/1 (\u00e9)";
            if (r.noise.includes("xff")) headers["x-forwarded-for"] = "not-an-address, 999.1.1.1";
            if (r.noise.includes("ct-on-get") && bodyOut.kind === "none") headers["content-type"] = "text/plain";
            const path = op.path.replace(/\{(\w+)\}/g, (_, k: string) => segments[k]!);
            return { method: op.method, path, query: queryOut, headers, body: bodyOut, notes };
          });
        });
    },
  };
}

/** A query object as the request line carries it; arrays become repeated names. */
export function toQueryString(value: unknown): string {
  if (value === null || typeof value !== "object" || Array.isArray(value)) return `q=${enc(JSON.stringify(value))}`;
  const parts: string[] = [];
  for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
    for (const item of Array.isArray(v) ? v : [v]) {
      const text = typeof item === "string" ? item : JSON.stringify(item) ?? "";
      parts.push(`${enc(k)}=${enc(text)}`);
    }
  }
  return parts.join("&");
}

/** Routes and the methods each serves, from the operations; `{x}` matches one segment. */
const SERVED = OPERATIONS.map((op) => ({ method: op.method as string, re: new RegExp(`^${op.path.replace(/\{\w+\}/g, "[^/]+")}$`) }));
const isServed = (method: string, path: string) => path === "/v1/openapi.json" || SERVED.some((s) => s.method === method && s.re.test(path));

/** Methods a path does not serve, and /v1 paths no route knows: the 404 envelope. */
function unroutedTarget(): Target {
  const paths = [...new Set(OPERATIONS.map((op) => op.path))];
  return {
    name: "other methods and paths",
    arbitrary(keys) {
      const segment = fc.oneof(
        fc.string({ unit: fc.constantFrom(...ALPHABET, "_", "-", "."), minLength: 1, maxLength: 20 }).filter((s) => s !== "." && s !== ".."),
        fc.constantFrom("%00", "%e2%80%ae", "💸", "%ff", "null", "undefined", "__proto__", "constructor", "v1", "payments", "%20").map((s) => (s === "💸" ? encodeURIComponent(s) : s)),
      );
      const knownPath = fc.tuple(fc.constantFrom(...paths), wellFormedId("payment")).map(([p, id]) => p.replace(/\{id\}/g, id).replace(/\{action\}/g, "succeed"));
      const unknownPath = fc.array(segment, { minLength: 1, maxLength: 6 }).map((segs) => `/v1/${segs.join("/")}`);
      const nested = fc.tuple(fc.constantFrom(...paths), fc.array(segment, { minLength: 1, maxLength: 3 })).map(([p, segs]) => `${p.replace(/\{\w+\}/g, "x")}/${segs.join("/")}`);
      return fc
        .record({
          method: fc.constantFrom("GET", "POST", "PUT", "PATCH", "DELETE"),
          path: fc.oneof(knownPath, unknownPath, nested),
          auth: fc.boolean(),
          body: fc.option(fc.jsonValue({ maxDepth: 2 }), { nil: undefined }),
        })
        .filter((r) => !isServed(r.method, r.path))
        .map((r) => ({
          method: r.method,
          path: r.path,
          query: "",
          headers: { ...(r.auth ? authHeader(keys.key) : {}), ...(r.body !== undefined && r.method !== "GET" ? { "content-type": "application/json" } : {}) },
          body: r.body !== undefined && r.method !== "GET" ? ({ kind: "text", text: JSON.stringify(r.body) } as Body) : ({ kind: "none" } as Body),
          notes: ["no operation serves this method and path"],
        }));
    },
  };
}

export const TARGETS: Target[] = [...OPERATIONS.map(operationTarget), unroutedTarget()];
