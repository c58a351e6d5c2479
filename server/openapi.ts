import { z } from "zod";
import { ERROR_CODES, ERROR_TYPES } from "@/server/domain/errors";
import { idPattern } from "@/server/domain/ids";
import { HTTP_STATUS } from "@/server/http/errors";
import { IDEMPOTENCY_KEY_SHAPE } from "@/server/http/idempotency";
import { limitParam, type Operation } from "@/server/schemas/common";
import { eventOperations } from "@/server/schemas/events";
import { paymentOperations } from "@/server/schemas/payments";
import { settlementOperations } from "@/server/schemas/settlements";
import { refundOperations } from "@/server/schemas/refunds";
import { webhookOperations } from "@/server/schemas/webhooks";
import { paymentLinkOperations } from "@/server/schemas/payment-links";
import { checkoutSessionOperations } from "@/server/schemas/checkout-sessions";

/** Every operation the API serves; later resources add their groups here. */
export const OPERATIONS: Operation[] = [
  ...Object.values(paymentOperations),
  ...Object.values(eventOperations),
  ...Object.values(webhookOperations),
  ...Object.values(paymentLinkOperations),
  ...Object.values(checkoutSessionOperations),
  ...Object.values(refundOperations),
  ...Object.values(settlementOperations),
];

const errorSchema = z.object({
  error: z.object({
    type: z.enum(ERROR_TYPES),
    code: z.enum(Object.keys(ERROR_CODES) as [keyof typeof ERROR_CODES, ...(keyof typeof ERROR_CODES)[]]),
    message: z.string(),
    param: z.string().optional(),
    request_id: z.string(),
  }),
});

/**
 * A zod schema as JSON Schema, for use inside the document (no `$schema` of its own). Query
 * parameters are strings on the wire; `limit` is documented as the integer it is parsed into.
 */
const jsonSchema = (schema: z.ZodType, io: "input" | "output") => {
  const { $schema: _, ...rest } = z.toJSONSchema(schema, {
    target: "draft-2020-12",
    io,
    unrepresentable: "any",
    override: (ctx) => {
      if (ctx.zodSchema === limitParam) {
        for (const k of Object.keys(ctx.jsonSchema)) delete ctx.jsonSchema[k];
        Object.assign(ctx.jsonSchema, { type: "integer", minimum: 1, maximum: 100, default: 10, description: limitParam.description });
      }
    },
  }) as Record<string, unknown>;
  return rest;
};

/** The error statuses, each with the codes it carries (from the one error table). */
const ERROR_RESPONSES = Object.fromEntries(
  Object.entries(HTTP_STATUS).map(([type, status]) => {
    const codes = Object.entries(ERROR_CODES)
      .filter(([, t]) => t === type)
      .map(([code]) => `\`${code}\``);
    return [
      String(status),
      {
        description: `${type}: ${codes.join(", ")}.`,
        headers: { "Request-Id": { $ref: "#/components/headers/Request-Id" }, ...(status === 429 ? { "Retry-After": { $ref: "#/components/headers/Retry-After" } } : {}) },
        content: { "application/json": { schema: { $ref: "#/components/schemas/Error" } } },
      },
    ];
  }),
);

/**
 * The error statuses an operation can answer with: what the /v1 wrapper does for every
 * operation (400; for authenticated ones 401, 403 and 429; 409 where an Idempotency-Key is
 * honoured) and 404 for an object that is not this merchant's in this environment, named in the
 * path, the body, or a list's cursor (`queryNames`).
 */
function errorStatuses(op: Operation, queryNames: readonly string[]): number[] {
  const statuses = [400];
  if (op.scope) statuses.push(401, 403);
  if (op.pathParams || op.notFound || queryNames.includes("starting_after") || queryNames.includes("ending_before")) statuses.push(404);
  if (op.idempotency !== "none") statuses.push(409);
  if (op.scope) statuses.push(429);
  return statuses;
}

/**
 * An error status as an operation answers it. Where an Idempotency-Key is honoured, a 4xx given
 * after validation (`msisdn_invalid`, `reference_in_use`, a missing object) is stored like any
 * answer and replayed with `Idempotent-Replayed`; 401, 403 and 429 come before the key is read.
 */
function errorResponse(op: Operation, status: number) {
  const shared = ERROR_RESPONSES[String(status)]!;
  if (op.idempotency === "none" || ![400, 404, 409].includes(status)) return shared;
  return { ...shared, headers: { ...shared.headers, "Idempotent-Replayed": { $ref: "#/components/headers/Idempotent-Replayed" } } };
}

/** A body whose every field is optional may be left out: the wrapper reads no body as `{}`. */
function requestBody(body: z.ZodType) {
  const schema = jsonSchema(body, "input");
  const required = Array.isArray(schema.required) && schema.required.length > 0;
  return { required, content: { "application/json": { schema } } };
}

/** OpenAPI 3.1, generated from the same zod schemas the handlers parse and shape with. */
export function openApiDocument(serverUrl: string) {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const op of OPERATIONS) {
    const parameters: unknown[] = Object.entries(op.pathParams ?? {}).map(([name, param]) => ({
      name,
      in: "path",
      required: true,
      description: param.description,
      schema: "values" in param ? { type: "string", enum: param.values } : { type: "string", pattern: idPattern(param.id) },
    }));
    const queryNames: string[] = [];
    if (op.query) {
      const schema = jsonSchema(op.query, "input") as { properties?: Record<string, unknown>; required?: string[] };
      for (const [name, prop] of Object.entries(schema.properties ?? {})) {
        parameters.push({ name, in: "query", required: schema.required?.includes(name) ?? false, schema: prop });
        queryNames.push(name);
      }
    }
    if (op.idempotency !== "none") {
      parameters.push({
        name: "Idempotency-Key",
        in: "header",
        required: op.idempotency === "required",
        description: "1–255 printable ASCII characters without spaces, remembered for 24 hours per merchant and environment.",
        schema: { type: "string", pattern: IDEMPOTENCY_KEY_SHAPE.source },
      });
    }
    paths[op.path] ??= {};
    paths[op.path]![op.method.toLowerCase()] = {
      operationId: op.operationId,
      summary: op.summary,
      tags: [op.tag],
      ...(op.scope ? { security: [{ bearerAuth: [] }, { basicAuth: [] }], "x-scope": op.scope } : {}),
      parameters,
      ...(op.body ? { requestBody: requestBody(op.body) } : {}),
      responses: {
        [op.status]: {
          description: "Success",
          headers: {
            "Request-Id": { $ref: "#/components/headers/Request-Id" },
            ...(op.idempotency !== "none" ? { "Idempotent-Replayed": { $ref: "#/components/headers/Idempotent-Replayed" } } : {}),
          },
          content: { "application/json": { schema: jsonSchema(op.response, "output") } },
        },
        ...Object.fromEntries(errorStatuses(op, queryNames).map((status) => [String(status), errorResponse(op, status)])),
        default: {
          description: "api_error: `internal` (500); query the object, then retry with the same Idempotency-Key.",
          headers: { "Request-Id": { $ref: "#/components/headers/Request-Id" } },
          content: { "application/json": { schema: { $ref: "#/components/schemas/Error" } } },
        },
      },
    };
  }
  // This document, served by its own route (app/v1/openapi.json): public, no key.
  paths["/v1/openapi.json"] = {
    get: {
      operationId: "getOpenApiDocument",
      summary: "This document (OpenAPI 3.1). Needs no key.",
      tags: ["Reference"],
      security: [],
      parameters: [],
      responses: {
        200: {
          description: "Success",
          headers: { "Request-Id": { $ref: "#/components/headers/Request-Id" } },
          content: { "application/json": { schema: { type: "object" } } },
        },
      },
    },
  };
  return {
    openapi: "3.1.0",
    info: {
      title: "Mari API",
      version: "v1",
      description: `Mobile-wallet payment collection. Errors use the envelope in components.schemas.Error; statuses: ${Object.entries(HTTP_STATUS)
        .map(([t, s]) => `${t} ${s}`)
        .join(", ")}.`,
    },
    servers: [{ url: serverUrl }],
    components: {
      securitySchemes: {
        bearerAuth: { type: "http", scheme: "bearer", description: "sk_test_…, sk_live_…, rk_test_…, rk_live_…" },
        basicAuth: { type: "http", scheme: "basic", description: "The key as the user name and an empty password (`curl -u sk_test_…:`)." },
      },
      schemas: { Error: jsonSchema(errorSchema, "output") },
      headers: {
        "Request-Id": { description: "This request's id (`req_…`), also in an error's `request_id`: quote it to support.", schema: { type: "string" } },
        "Idempotent-Replayed": { description: "`true` when the answer is the stored one of an earlier request with the same Idempotency-Key.", schema: { type: "string", enum: ["true"] } },
        "Retry-After": { description: "Seconds to wait before the request can succeed.", schema: { type: "integer", minimum: 1 } },
      },
    },
    paths,
  };
}
