import type { z } from "zod";
import { invalidParam, type ServiceError } from "@/server/domain/errors";

/** Parses with a zod schema; the first problem becomes a `parameter_invalid` naming its field. */
export function parseOrThrow<S extends z.ZodType>(schema: S, input: unknown, where: "body" | "query"): z.output<S> {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  throw toParamError(result.error, where);
}

function toParamError(error: z.ZodError, where: "body" | "query"): ServiceError {
  const issue = error.issues[0]!;
  const path = issue.path.map(String);
  if (issue.code === "unrecognized_keys") {
    const name = [...path, issue.keys[0]!].join(".");
    return invalidParam(name, `Unknown parameter: '${name}'.`);
  }
  if (path.length === 0) {
    return invalidParam("body", where === "body" ? "The request body must be a JSON object." : issue.message);
  }
  const name = path.join(".");
  // A bad record key (metadata) carries the schema's own message one level down.
  const detail = issue.code === "invalid_key" ? (issue.issues[0]?.message ?? issue.message) : issue.message;
  const message = issue.code === "invalid_type" && issue.input === undefined ? `Missing required parameter: '${name}'.` : capitalise(detail);
  return invalidParam(name, message);
}

function capitalise(s: string): string {
  const text = s.charAt(0).toUpperCase() + s.slice(1);
  return /[.!?]$/.test(text) ? text : `${text}.`;
}

/** Query strings as a flat object; a repeated parameter becomes an array, which schemas refuse. */
export function queryObject(url: URL): Record<string, string | string[]> {
  // No prototype: `?__proto__=x` or `?constructor=x` must be plain unknown parameters.
  const out: Record<string, string | string[]> = Object.create(null);
  for (const [k, v] of url.searchParams) {
    if (k.includes("\u0000") || v.includes("\u0000")) throw invalidParam(k.replace(/\u0000/g, ""), "Text may not contain the NUL character (\\u0000).");
    const prev = out[k];
    out[k] = prev === undefined ? v : Array.isArray(prev) ? [...prev, v] : [prev, v];
  }
  return out;
}
