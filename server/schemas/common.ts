import { z } from "zod";
import type { Scope } from "@/server/domain/api-keys";
import type { ErrorCode } from "@/server/domain/errors";
import { ID_PREFIXES, idPattern, type IdKind } from "@/server/domain/ids";
import { METADATA_MAX_KEYS } from "@/server/domain/metadata";

/** DESIGN.md limits: ≤ 50 keys, key ≤ 40 chars, string values ≤ 500 chars. */
export const metadataSchema = z
  .record(
    z.string().min(1, "metadata keys must not be empty").max(40, "metadata keys must be at most 40 characters"),
    z.string({ error: "metadata values must be strings" }).max(500, "metadata values must be at most 500 characters"),
    { error: "metadata must be an object of string keys and string values" },
  )
  .refine((m) => Object.keys(m).length <= METADATA_MAX_KEYS, { message: `metadata may hold at most ${METADATA_MAX_KEYS} keys` })
  // The refinement does not reach the OpenAPI document; the limit does, through this.
  .meta({ maxProperties: METADATA_MAX_KEYS })
  .describe("Your own key-value pairs, returned on every read and on every webhook.");

export const timestamp = z.iso.datetime().describe("RFC 3339 UTC timestamp.");

/** A nullable time column as a resource shows it. */
export const iso = (d: Date | null) => (d ? d.toISOString() : null);

/** 9999-12-31T23:59:59Z: the last second PostgreSQL's timestamps and RFC 3339's four-digit years both hold. */
const LATEST_UNIX_SECONDS = 253_402_300_799;

/**
 * A point in time: an RFC 3339 timestamp or Unix seconds, as a string (queries) or, in a JSON
 * body, as a whole number too; no later than the year 9999.
 */
export const timeBound = z
  .union(
    [
      z.iso.datetime({ offset: true }),
      z.string().regex(/^\d{1,12}$/),
      z.number().int().min(0).max(LATEST_UNIX_SECONDS, "must be no later than 9999-12-31T23:59:59Z (253402300799)"),
    ],
    {
      error: (issue) =>
        `must be Unix seconds or an RFC 3339 timestamp, no later than 9999-12-31T23:59:59Z${
          // A "+02:00" sent unencoded in a query string arrives as " 02:00".
          typeof issue.input === "string" && /\d \d{2}:\d{2}$/.test(issue.input) ? ", and a '+' in a query string arrives as a space: write it as %2B" : ""
        }`,
    },
  )
  .transform((v) => (typeof v === "number" ? new Date(v * 1000) : /^\d+$/.test(v) ? new Date(Number(v) * 1000) : new Date(v)))
  // Past the year 9999 in any form: digits, or an offset carrying 9999-12-31T23:00:00-05:00 over.
  .refine((d) => d.getTime() <= LATEST_UNIX_SECONDS * 1000, { error: "must be no later than 9999-12-31T23:59:59Z" });

/**
 * An optional field of a create body whose resource reads null when it is not set: null is taken
 * as leaving it out, so a client that writes unset fields as null, or sends back what it read, is
 * not refused. (An update's null clears a field instead; its schemas say so where they allow it.)
 */
export const unsetWhenNull = <T extends z.ZodType>(schema: T) => schema.nullish().transform((v) => v ?? undefined);

const LIMIT_RANGE = "limit must be an integer between 1 and 100";

/** One message for every way a `limit` misses (a sign, a fraction, 0, 101, past 2^53). */
export const limitParam = z
  .string()
  .regex(/^\d+$/, LIMIT_RANGE)
  .transform(Number)
  .pipe(z.number().int(LIMIT_RANGE).min(1, LIMIT_RANGE).max(100, LIMIT_RANGE))
  .default(10)
  .describe("How many objects to return, 1–100 (default 10).");

/**
 * An id of one kind (`pay_…`, `evt_…`) as a parameter; the pattern shows in the OpenAPI document.
 * `what` names it in the error: "must be a payment id (pay_ and 26 letters and digits)".
 */
export function idParam(kind: IdKind, what: string) {
  const message = `must be ${what} (${ID_PREFIXES[kind]}_ and 26 letters and digits)`;
  return z.string({ error: message }).regex(new RegExp(idPattern(kind)), message);
}

/**
 * A time window's end after its start. A window that ends at or before its start matches nothing,
 * so it is refused as the mistake it almost always is (two bounds swapped), naming the end.
 */
export function windowOrder<Start extends string, End extends string>(
  start: Start,
  end: End,
): [check: (q: { [K in Start | End]?: Date }) => boolean, params: { message: string; path: string[] }] {
  return [
    (q) => q[start] === undefined || q[end] === undefined || q[end]! > q[start]!,
    { message: `${end} must be after ${start}`, path: [end] },
  ];
}

/** Every list's rule on its two cursors: one direction per request. */
export const oneCursor: [check: (q: { starting_after?: string; ending_before?: string }) => boolean, params: { message: string; path: string[] }] = [
  (q) => q.starting_after === undefined || q.ending_before === undefined,
  { message: "Use either starting_after or ending_before, not both", path: ["ending_before"] },
];

export function listEnvelope<T extends z.ZodType>(item: T) {
  return z.object({
    object: z.literal("list"),
    data: z.array(item),
    has_more: z.boolean(),
    url: z.string(),
  });
}

export type HttpMethod = "GET" | "POST" | "DELETE";

/** One /v1 operation: the contract its handler parses with and the OpenAPI document shows. */
export type Operation<Body extends z.ZodType | undefined = z.ZodType | undefined, Query extends z.ZodType | undefined = z.ZodType | undefined> = {
  operationId: string;
  method: HttpMethod;
  path: string;
  summary: string;
  tag: string;
  /** Scope a restricted key needs; null for public, unauthenticated operations. */
  scope: Scope | null;
  body?: Body;
  query?: Query;
  /** `required`: no Idempotency-Key → 400. `optional`: honoured when sent. */
  idempotency: "required" | "optional" | "none";
  /** Without path parameters, when the operation still answers 404 (an id in the body, a live key on a test helper). */
  notFound?: true;
  /** Codes of its own it may answer with, beyond the ones every operation of its kind has (server/openapi.ts, errorCodesOf). */
  errors?: readonly ErrorCode[];
  /** The answer shows a secret: its idempotency record is stored sealed (server/domain/sealing.ts). */
  secretInResponse?: true;
  status: 200 | 201;
  response: z.ZodType;
  /** What the success answer holds, when there is more to say than "Success". */
  responseDescription?: string;
  /** Each path parameter: an id of a kind (documented with its pattern), or one of some values. */
  pathParams?: Record<string, { description: string; id: IdKind } | { description: string; values: readonly string[] }>;
};

export function defineOperation<B extends z.ZodType | undefined, Q extends z.ZodType | undefined>(op: Operation<B, Q>): Operation<B, Q> {
  return op;
}
