import type { z } from "zod";
import { invalidParam, type ServiceError } from "@/server/domain/errors";
import { UNSTORABLE_MESSAGE } from "@/server/domain/unstorable";
import { allowedValues } from "@/server/domain/wording";

/** Parses with a zod schema; the first problem becomes a `parameter_invalid` naming its field. */
export function parseOrThrow<S extends z.ZodType>(schema: S, input: unknown, where: "body" | "query"): z.output<S> {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  throw toParamError(result.error, where, input);
}

/** The first problem a schema found in `input`, as a `parameter_invalid` naming its field (the API's and the dashboard's). */
export function toParamError(error: z.ZodError, where: "body" | "query", input: unknown): ServiceError {
  const issue = error.issues[0]!;
  const path = issue.path.filter((k): k is string | number => typeof k !== "symbol");
  if (issue.code === "unrecognized_keys") {
    const name = paramName([...path, issue.keys[0]!]);
    return invalidParam(name, `Unknown parameter: '${name}'.`);
  }
  if (path.length === 0) {
    return invalidParam("body", where === "body" ? "The request body must be a JSON object." : sentence(issue.message, "query"));
  }
  // A query parameter is named by its key alone (`type`, however many values it carried).
  const name = paramName(where === "query" ? path.filter((k) => typeof k === "string") : path);
  const value = valueAt(input, where === "query" ? path.slice(0, 1) : path);
  // A rule across fields (`custom`) may point at one left out on purpose; any other issue there is its absence.
  if (value === undefined && issue.code !== "custom") return invalidParam(name, `Missing required parameter: '${name}'.`);
  // A parameter given twice arrives as an array; one that takes several values is refused at an entry (a longer path).
  if (where === "query" && Array.isArray(value) && path.length === 1) return invalidParam(name, `${name} may be given only once.`);
  // A bad record key (metadata) carries the schema's own message one level down.
  const detail = issue.code === "invalid_key" ? (issue.issues[0]?.message ?? issue.message) : issue.message;
  return invalidParam(name, sentence(ZOD_WORDING.test(detail) ? (plainWords(issue) ?? detail) : detail, name));
}

/** zod's own messages ("Too big: expected string to have <=64 characters"), where a schema gave none of ours. */
const ZOD_WORDING = /^(Too big|Too small|Invalid input|Invalid option)\b/;

function plainWords(issue: z.core.$ZodIssue): string | null {
  const unit = (origin: string) => (origin === "string" ? " characters" : origin === "array" || origin === "set" ? " items" : "");
  switch (issue.code) {
    case "too_big":
      return `must be at most ${String(issue.maximum)}${unit(issue.origin)}`;
    case "too_small":
      return `must be at least ${String(issue.minimum)}${unit(issue.origin)}`;
    case "invalid_type":
      return `must be ${/^[aeiou]/.test(issue.expected) ? "an" : "a"} ${issue.expected}`;
    case "invalid_value":
      return `must be ${allowedValues(issue.values)}`;
    default:
      return null;
  }
}

/** A field's name as `param` gives it: `customer.msisdn`, `enabled_events[1]`; an empty key is named by its object (`metadata`). */
function paramName(path: readonly (string | number)[]): string {
  return path.reduce<string>((name, k) => (typeof k === "number" ? `${name}[${k}]` : name && k ? `${name}.${k}` : name || k), "");
}

function valueAt(input: unknown, path: readonly (string | number)[]): unknown {
  let value = input;
  for (const k of path) {
    if (value === null || typeof value !== "object" || !Object.hasOwn(value, k)) return undefined;
    value = (value as Record<string | number, unknown>)[k];
  }
  return value;
}

/**
 * A schema's message as the error's sentence. Messages start with their field's name as it is
 * spelt (`success_url must be…`), so their case is kept; one that starts at "must" gets the name.
 */
function sentence(message: string, name: string): string {
  const text = message.startsWith("must ") ? `${name} ${message}` : message;
  return /[.!?]$/.test(text) ? text : `${text}.`;
}

/** Query strings as a flat object; a repeated parameter becomes an array, which schemas refuse. */
export function queryObject(url: URL): Record<string, string | string[]> {
  // No prototype: `?__proto__=x` or `?constructor=x` must be plain unknown parameters.
  const out: Record<string, string | string[]> = Object.create(null);
  for (const [k, v] of url.searchParams) {
    if (k.includes("\u0000") || v.includes("\u0000")) throw invalidParam(k.replace(/\u0000/g, ""), UNSTORABLE_MESSAGE.nul);
    const prev = out[k];
    out[k] = prev === undefined ? v : Array.isArray(prev) ? [...prev, v] : [prev, v];
  }
  return out;
}
