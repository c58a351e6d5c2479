/**
 * fast-check arbitraries read off the zod 4 request schemas (`schema._zod.def`), so the fuzzer
 * follows the contract as it changes instead of a hand-kept copy of it.
 *
 * `validShaped` makes values that look right (the right types, lengths inside the bounds):
 * starting points that the mutations in `mutations.ts` then break in one place, so that the
 * server's checks are reached field by field rather than stopped at the first wrong type.
 */
import fc from "fast-check";
import type { z } from "zod";

/** The parts of a zod 4 definition this walker reads; zod keeps them on `schema._zod.def`. */
export type Def = {
  type: string;
  shape?: Record<string, z.ZodType>;
  innerType?: z.ZodType;
  in?: z.ZodType;
  out?: z.ZodType;
  element?: z.ZodType;
  keyType?: z.ZodType;
  valueType?: z.ZodType;
  options?: z.ZodType[];
  entries?: Record<string, string | number>;
  values?: unknown[];
  format?: string;
  checks?: { _zod: { def: CheckDef } }[];
};

export type CheckDef = {
  check: string;
  minimum?: number;
  maximum?: number;
  value?: number;
  inclusive?: boolean;
  format?: string;
  pattern?: RegExp;
};

export const defOf = (s: z.ZodType): Def => (s as unknown as { _zod: { def: Def } })._zod.def;
export const checksOf = (s: z.ZodType): CheckDef[] => (defOf(s).checks ?? []).map((c) => c._zod.def);

/** Wrappers that do not change what JSON is accepted, only whether it may be absent. */
export function unwrap(s: z.ZodType): z.ZodType {
  const def = defOf(s);
  if (def.type === "optional" || def.type === "default" || def.type === "nullable" || def.type === "readonly") return unwrap(def.innerType!);
  if (def.type === "pipe") return unwrap(def.in!);
  return s;
}

export function isOptional(s: z.ZodType): boolean {
  const t = defOf(s).type;
  return t === "optional" || t === "default";
}

/** Length or size bounds of a string, array or record. */
export function lengthBounds(s: z.ZodType): { min?: number; max?: number } {
  const out: { min?: number; max?: number } = {};
  for (const c of checksOf(s)) {
    if (c.check === "min_length") out.min = c.minimum;
    if (c.check === "max_length") out.max = c.maximum;
  }
  return out;
}

/** Numeric bounds, inclusive, and whether only integers pass. */
export function numberBounds(s: z.ZodType): { min: number; max: number; int: boolean } {
  let min = -Number.MAX_SAFE_INTEGER;
  let max = Number.MAX_SAFE_INTEGER;
  let int = false;
  for (const c of checksOf(s)) {
    if (c.check === "number_format" && (c.format === "safeint" || c.format === "int32")) int = true;
    if (c.check === "greater_than") min = c.inclusive ? c.value! : c.value! + 1;
    if (c.check === "less_than") max = c.inclusive ? c.value! : c.value! - 1;
  }
  return { min, max, int };
}

export function regexOf(s: z.ZodType): RegExp | undefined {
  const def = defOf(s);
  if (def.format === "datetime") return undefined;
  return checksOf(s).find((c) => c.check === "string_format" && c.format === "regex")?.pattern;
}

const MSISDNS = ["263770000001", "263770000002", "0770000003", "+263 77 000 0004", "0770000005"];

/** A value the schema would (nearly always) accept; `name` lets a field borrow a realistic form. */
export function validShaped(schema: z.ZodType, name = ""): fc.Arbitrary<unknown> {
  const s = unwrap(schema);
  const def = defOf(s);
  switch (def.type) {
    case "object": {
      const shape = def.shape!;
      const arbs: Record<string, fc.Arbitrary<unknown>> = {};
      for (const [k, v] of Object.entries(shape)) arbs[k] = validShaped(v, k);
      const requiredKeys = Object.keys(shape).filter((k) => !isOptional(shape[k]!));
      return fc.record(arbs, { requiredKeys });
    }
    case "string": {
      if (def.format === "datetime") return fc.date({ min: new Date("2020-01-01"), max: new Date("2035-01-01"), noInvalidDate: true }).map((d) => d.toISOString());
      const re = regexOf(s);
      if (re) return fc.stringMatching(re);
      if (name === "msisdn") return fc.constantFrom(...MSISDNS);
      if (/url$/.test(name)) return fc.webUrl({ validSchemes: ["https", "http"] });
      const { min = 0, max = 64 } = lengthBounds(s);
      return fc.string({ minLength: min, maxLength: Math.min(max, Math.max(min, 40)), unit: "grapheme" });
    }
    case "number": {
      const { min, max, int } = numberBounds(s);
      return int ? fc.integer({ min, max }) : fc.double({ min, max, noNaN: true });
    }
    case "boolean":
      return fc.boolean();
    case "enum":
      return fc.constantFrom(...Object.values(def.entries!));
    case "literal":
      return fc.constantFrom(...def.values!);
    case "union":
      return fc.oneof(...def.options!.map((o) => validShaped(o, name)));
    case "array": {
      const { min = 0, max = 5 } = lengthBounds(s);
      return fc.array(validShaped(def.element!, name), { minLength: min, maxLength: Math.min(max, min + 3) });
    }
    case "record":
      return fc.dictionary(validShaped(def.keyType!) as fc.Arbitrary<string>, validShaped(def.valueType!), { maxKeys: 4 });
    default:
      return fc.jsonValue({ maxDepth: 2 });
  }
}

/** The schema found by following `path` through objects, records and arrays (unwrapped). */
export function schemaAt(schema: z.ZodType, path: (string | number)[]): z.ZodType | undefined {
  let s: z.ZodType | undefined = unwrap(schema);
  for (const p of path) {
    if (!s) return undefined;
    const def = defOf(s);
    if (def.type === "object") s = def.shape![String(p)];
    else if (def.type === "record") s = def.valueType;
    else if (def.type === "array") s = def.element;
    else return undefined;
    if (s) s = unwrap(s);
  }
  return s;
}
