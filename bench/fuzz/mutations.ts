/**
 * Turning a valid-shaped value into a wrong one at one place, and the hand-picked nasties: text
 * that is not JSON, numbers JSON cannot carry, nesting thousands deep, odd unicode.
 * Whether the result is really invalid is decided afterwards, by the schema itself (`invalidity.ts`).
 */
import fc from "fast-check";
import type { z } from "zod";
import { defOf, isOptional, lengthBounds, numberBounds, regexOf, schemaAt, unwrap } from "./schema-arbitrary";

export type Path = (string | number)[];
export type Mutated = { value: unknown; note: string };

/** Strings no field expects: direction overrides, joiners, lone surrogates, noncharacters, NUL. */
export const ODD_STRINGS = [
  "",
  " ",
  "\u202eUSD",
  "US\u200dD",
  "U\u0301SD",
  "\ud800",
  "\udfff\ud800",
  "\uffff",
  "\ufeff",
  "\u2028\u2029",
  "💸".repeat(3),
  "ｐａｙ",
  "\u0000",
  "a\u0000b",
  "null",
  "undefined",
  "NaN",
  "-1",
  "1e309",
  "0x10",
  "'; drop table payments; --",
  "../../etc/passwd",
  "%00",
  "\\u0000",
  "${7*7}",
  "<script>alert(1)</script>",
];

/** Numbers at and past every edge, including ones JSON can carry but JavaScript rounds. */
export const ODD_NUMBERS = [0, -0, -1, 1.5, 0.1, 1e21, -1e21, 2 ** 53, 2 ** 53 + 2, -(2 ** 53) - 2, 1e308, 5e-324, 99_999_999.5, 100_000_000, 2 ** 31, -(2 ** 31)];

const OTHER_VALUES: unknown[] = [null, true, false, 0, 1, -1, 1.5, "", "x", "100", [], [1], ["x"], {}, { a: 1 }, { "": "" }];

/** Every path into a JSON value, the root (`[]`) first. */
export function pathsOf(value: unknown, prefix: Path = []): Path[] {
  const out: Path[] = [prefix];
  if (Array.isArray(value)) value.forEach((v, i) => out.push(...pathsOf(v, [...prefix, i])));
  else if (value && typeof value === "object") for (const [k, v] of Object.entries(value)) out.push(...pathsOf(v, [...prefix, k]));
  return out;
}

const clone = <T>(v: T): T => (v === undefined ? v : (JSON.parse(JSON.stringify(v)) as T));

/** An own property even for `__proto__`, which plain assignment would turn into a prototype. */
function put(target: Record<string, unknown> | unknown[], key: string | number, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

function setAt(root: unknown, path: Path, value: unknown): unknown {
  if (path.length === 0) return value;
  const copy = clone(root);
  let node = copy as Record<string, unknown>;
  for (const p of path.slice(0, -1)) node = node[p as string] as Record<string, unknown>;
  put(node, path[path.length - 1]!, value);
  return copy;
}

function deleteAt(root: unknown, path: Path): unknown {
  const copy = clone(root);
  let node = copy as Record<string, unknown>;
  for (const p of path.slice(0, -1)) node = node[p as string] as Record<string, unknown>;
  delete node[path[path.length - 1] as string];
  return copy;
}

const getAt = (root: unknown, path: Path): unknown => path.reduce<unknown>((n, p) => (n as Record<string, unknown>)?.[p as string], root);
const show = (path: Path) => (path.length ? path.join(".") : "(root)");

/** Values just past a field's bounds, read from its schema. */
function boundaryValues(schema: z.ZodType | undefined, current: unknown): unknown[] {
  if (!schema) return OTHER_VALUES;
  const s = unwrap(schema);
  const def = defOf(s);
  switch (def.type) {
    case "string": {
      const { min, max } = lengthBounds(s);
      const out: unknown[] = [...ODD_STRINGS];
      if (max !== undefined) out.push("x".repeat(max + 1), "é".repeat(max + 1), "💸".repeat(Math.ceil((max + 1) / 2)));
      if (min !== undefined && min > 0) out.push("x".repeat(min - 1));
      if (regexOf(s) && typeof current === "string") out.push(`${current}x`, current.slice(0, -1), current.toUpperCase(), ` ${current}`, `${current}\n`);
      if (def.format === "datetime" && typeof current === "string") out.push(current.replace("T", " "), current.slice(0, 10), `${current}Z`, "2025-02-30T00:00:00Z", "2025-01-01T24:00:00Z");
      return out;
    }
    case "number": {
      const { min, max, int } = numberBounds(s);
      const out: unknown[] = [min - 1, max + 1, ...ODD_NUMBERS, String(min), `${min}`];
      if (int) out.push(min + 0.5, max - 0.5);
      return out;
    }
    case "enum": {
      const entries = Object.values(def.entries!).map(String);
      return [...entries.flatMap((e) => [e.toUpperCase(), e.toLowerCase(), ` ${e}`, `${e} `, `${e}s`, e.slice(1)]), "", ...ODD_STRINGS.slice(0, 6)];
    }
    case "array": {
      const { min, max } = lengthBounds(s);
      const item = Array.isArray(current) && current.length > 0 ? current[0] : "x";
      const out: unknown[] = [[], [null], [item, 1], [[item]]];
      if (max !== undefined) out.push(Array.from({ length: max + 1 }, () => item));
      if (min !== undefined && min > 1) out.push([item]);
      return out;
    }
    case "record":
      return [
        Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`k${i}`, "v"])),
        { ["k".repeat(41)]: "v" },
        { "": "v" },
        { k: "v".repeat(501) },
        { k: 1 },
        { k: null },
        { k: { nested: "v" } },
        { k: ["v"] },
        { "\u0000": "v" },
      ];
    case "boolean":
      return ["true", "false", 0, 1, "yes", null];
    default:
      return OTHER_VALUES;
  }
}

/** One change to `base` at one place, chosen among the kinds of wrong a client can send. */
export function mutateValue(schema: z.ZodType, base: unknown): fc.Arbitrary<Mutated> {
  const paths = pathsOf(base);
  const objectPaths = paths.filter((p) => {
    const v = getAt(base, p);
    return v !== null && typeof v === "object" && !Array.isArray(v);
  });
  const requiredPaths: Path[] = [];
  for (const p of objectPaths) {
    const s = schemaAt(schema, p);
    if (s && defOf(s).type === "object") {
      for (const [k, v] of Object.entries(defOf(s).shape!)) if (!isOptional(v) && k in (getAt(base, p) as object)) requiredPaths.push([...p, k]);
    }
  }
  const strange = fc.oneof(
    fc.constantFrom("__proto__", "constructor", "prototype", "toString", "id", "object", "livemode", "status", "fee", "merchant", "Amount", "amount ", "amount\u0000", ""),
    fc.string({ minLength: 1, maxLength: 12 }),
  );

  const kinds: fc.Arbitrary<Mutated>[] = [
    fc.tuple(fc.constantFrom(...paths), fc.constantFrom(...OTHER_VALUES)).map(([p, v]) => ({ value: setAt(base, p, v), note: `wrong type at ${show(p)}: ${JSON.stringify(v)}` })),
    fc
      .constantFrom(...paths)
      .chain((p) => fc.constantFrom(...boundaryValues(schemaAt(schema, p), getAt(base, p))).map((v) => ({ p, v })))
      .map(({ p, v }) => ({ value: setAt(base, p, v), note: `boundary at ${show(p)}: ${JSON.stringify(v)?.slice(0, 80)}` })),
  ];
  if (objectPaths.length > 0) {
    kinds.push(
      fc
        .tuple(fc.constantFrom(...objectPaths), strange, fc.jsonValue({ maxDepth: 1 }))
        .map(([p, k, v]) => ({ value: setAt(base, [...p, k], v), note: `unknown field ${JSON.stringify(k)} at ${show(p)}` })),
    );
  }
  if (requiredPaths.length > 0) {
    kinds.push(fc.constantFrom(...requiredPaths).map((p) => ({ value: deleteAt(base, p), note: `missing required ${show(p)}` })));
  }
  return fc.oneof(...kinds);
}

/** Body text that is not what a JSON parser wants, or is JSON nobody should send. */
export function rawJsonNasty(valid: unknown): fc.Arbitrary<{ text: string; note: string }> {
  const json = JSON.stringify(valid ?? {});
  const inner = json.length > 2 ? json.slice(1, -1) : "";
  const depth = fc.integer({ min: 1_000, max: 20_000 });
  return fc.oneof(
    fc.constantFrom(
      { text: "{", note: "truncated JSON" },
      { text: json.slice(0, Math.max(1, json.length - 1)), note: "truncated JSON" },
      { text: `{${inner},}`, note: "trailing comma" },
      { text: json.replace(/"/g, "'"), note: "single quotes" },
      { text: `{"amount": NaN${inner ? `,${inner}` : ""}}`, note: "NaN literal" },
      { text: `{"amount": Infinity}`, note: "Infinity literal" },
      { text: `{"amount": -Infinity}`, note: "-Infinity literal" },
      { text: `{${inner ? `${inner},` : ""}"amount": 1e999}`, note: "number overflowing to Infinity" },
      { text: `{${inner ? `${inner},` : ""}"amount": -1e999}`, note: "number overflowing to -Infinity" },
      { text: `{${inner ? `${inner},` : ""}"amount": 123456789012345678901234567890}`, note: "30-digit integer" },
      { text: `{${inner ? `${inner},` : ""}"amount": 1e-400}`, note: "underflow to 0" },
      { text: `\ufeff${json}`, note: "byte order mark" },
      { text: `${json}${json}`, note: "two documents" },
      { text: `${json} // comment`, note: "comment" },
      { text: `{"__proto__": {"amount": 1}${inner ? `,${inner}` : ""}}`, note: "__proto__ key" },
      { text: `{"constructor": {"prototype": {"x": 1}}${inner ? `,${inner}` : ""}}`, note: "constructor key" },
      { text: `{${inner ? `${inner},` : ""}"${inner ? (Object.keys(valid as object)[0] ?? "a") : "a"}": {"$gt": ""}}`, note: "operator object" },
      { text: "[]", note: "array body" },
      { text: "null", note: "null body" },
      { text: "0", note: "number body" },
      { text: '"string"', note: "string body" },
      { text: "true", note: "boolean body" },
      { text: `{"a":"\\u0000"}`, note: "escaped NUL" },
      { text: `{"\\u0000":1}`, note: "NUL in a key" },
      { text: `{"metadata":{"k":"\\ud800"}${inner ? `,${inner}` : ""}}`, note: "lone surrogate in metadata" },
      { text: `<xml>${json}</xml>`, note: "XML" },
      { text: "amount=100&currency=USD", note: "form encoding as JSON" },
    ),
    depth.map((d) => ({ text: "[".repeat(d) + "]".repeat(d), note: `arrays nested ${d} deep` })),
    depth.map((d) => ({ text: `{"metadata":${'{"a":'.repeat(d)}1${"}".repeat(d)}${inner ? `,${inner}` : ""}}`, note: `metadata nested ${d} deep` })),
    depth.map((d) => ({ text: `${'{"a":'.repeat(d)}"x"${"}".repeat(d)}`, note: `objects nested ${d} deep` })),
    fc.integer({ min: 1, max: 30 }).map((n) => ({ text: `{${inner}${`,${inner}`.repeat(n)}}`, note: `every key ${n + 1} times` })),
  );
}
