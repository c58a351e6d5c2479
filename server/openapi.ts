import { z } from "zod";
import { ERROR_CODES, ERROR_TYPES, type ErrorCode } from "@/server/domain/errors";
import { idPattern } from "@/server/domain/ids";
import { HTTP_STATUS } from "@/server/http/errors";
import { IDEMPOTENCY_KEY_SHAPE } from "@/server/http/idempotency";
import { limitParam, type Operation } from "@/server/schemas/common";
import { EVENT_TYPES, type EventType } from "@/server/domain/events";
import { SIGNATURE_TOLERANCE_S } from "@/server/domain/signatures";
import { DELIVERY_TIMEOUT_MS, GIVE_UP_AFTER_MS, RETRY_DELAYS_S, ROLLED_SECRET_OVERLAP_MS, SIGNATURE_HEADER } from "@/server/domain/webhooks";
import { eventOperations, eventResource } from "@/server/schemas/events";
import { paymentOperations, paymentResource } from "@/server/schemas/payments";
import { settlementOperations, settlementResource } from "@/server/schemas/settlements";
import { refundOperations, refundResource } from "@/server/schemas/refunds";
import { webhookEndpointResource, webhookOperations } from "@/server/schemas/webhooks";
import { paymentLinkOperations } from "@/server/schemas/payment-links";
import { checkoutSessionOperations, checkoutSessionResource } from "@/server/schemas/checkout-sessions";

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

/** The error envelope, its `code` one of those the operations answer with. */
const errorSchema = (codes: readonly ErrorCode[]) =>
  z.object({
    error: z.object({
      type: z.enum(ERROR_TYPES),
      code: z.enum(codes as [ErrorCode, ...ErrorCode[]]),
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

/**
 * The error codes an operation can answer with, by HTTP status: what the /v1 wrapper does for
 * every operation (400 `parameter_invalid`; for authenticated ones 401, 403 and 429; 409 where an
 * Idempotency-Key is honoured), 404 for an object that is not this merchant's in this environment
 * (named in the path, the body, or a list's cursor), 500 `internal` for any of them, and the codes
 * of its own (`errors`). The codes only the hosted pages answer with are in none.
 */
export function errorCodesOf(op: Operation): Map<number, ErrorCode[]> {
  let byStatus = codesByOperation.get(op);
  if (!byStatus) codesByOperation.set(op, (byStatus = listErrorCodes(op)));
  return byStatus;
}

/** Each operation's codes, worked out once: the document lists them, and every error a test meets is held to them. */
const codesByOperation = new WeakMap<Operation, Map<number, ErrorCode[]>>();

function listErrorCodes(op: Operation): Map<number, ErrorCode[]> {
  const codes: ErrorCode[] = ["parameter_invalid"];
  if (op.idempotency === "required") codes.push("idempotency_key_required");
  if (op.scope) codes.push("api_key_invalid", "scope_missing", "rate_limited");
  const queryNames = queryNamesOf(op);
  if (op.pathParams || op.notFound || queryNames.includes("starting_after") || queryNames.includes("ending_before")) codes.push("resource_missing");
  if (op.idempotency !== "none") codes.push("idempotency_key_reused", "request_in_progress");
  codes.push(...(op.errors ?? []), "internal");
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of Object.keys(ERROR_CODES) as ErrorCode[]) {
    if (!codes.includes(code)) continue;
    const status = HTTP_STATUS[ERROR_CODES[code]];
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  return byStatus;
}

/**
 * Why an error answer is not one its operation's entry lists, or null when it is: the tests and
 * the fuzzer hold every answer they get to the document.
 */
export function undocumentedError(op: Operation, status: number, code: unknown): string | null {
  if (status < 400) return null;
  const listed = errorCodesOf(op).get(status) ?? [];
  if (listed.includes(code as ErrorCode)) return null;
  return `${op.method} ${op.path} answered ${status} ${String(code)}, which its OpenAPI entry does not list (${listed.join(", ") || "nothing"} for ${status})`;
}

const OPERATION_PATTERNS = OPERATIONS.map((op) => ({ op, pattern: new RegExp(`^${op.path.replace(/\{\w+\}/g, "[^/]+")}$`), params: op.path.split("{").length }))
  // Static segments first, as Next matches: /v1/payments/preview before /v1/payments/{id}.
  .sort((a, b) => a.params - b.params);

/** The operation a request reaches, as Next routes it; undefined for a path or method none serves. */
export function operationFor(method: string, pathname: string): Operation | undefined {
  return OPERATION_PATTERNS.find(({ op, pattern }) => op.method === method && pattern.test(pathname))?.op;
}

const queryNamesOf = (op: Operation): string[] =>
  op.query ? Object.keys((jsonSchema(op.query, "input") as { properties?: Record<string, unknown> }).properties ?? {}) : [];

const TYPE_OF_STATUS = new Map(Object.entries(HTTP_STATUS).map(([type, status]) => [status as number, type]));

/**
 * An error status as an operation answers it, naming its codes. Where an Idempotency-Key is
 * honoured, a 4xx given after validation (`msisdn_invalid`, `reference_in_use`, a missing object)
 * is stored like any answer and replayed with `Idempotent-Replayed`; 401, 403 and 429 come before
 * the key is read.
 */
function errorResponse(op: Operation, status: number, codes: readonly ErrorCode[]) {
  const replayed = op.idempotency !== "none" && [400, 404, 409].includes(status);
  return {
    description: `${TYPE_OF_STATUS.get(status)}: ${codes.map((c) => `\`${c}\``).join(", ")}.`,
    headers: {
      "Request-Id": { $ref: "#/components/headers/Request-Id" },
      // 429, and a 409 `request_in_progress` (the first request with the key still runs).
      ...(status === 429 || codes.includes("request_in_progress") ? { "Retry-After": { $ref: "#/components/headers/Retry-After" } } : {}),
      ...(replayed ? { "Idempotent-Replayed": { $ref: "#/components/headers/Idempotent-Replayed" } } : {}),
    },
    content: { "application/json": { schema: { $ref: "#/components/schemas/Error" } } },
  };
}

/** A body whose every field is optional may be left out: the wrapper reads no body as `{}`. */
function requestBody(body: z.ZodType) {
  const schema = jsonSchema(body, "input");
  const required = Array.isArray(schema.required) && schema.required.length > 0;
  return { required, content: { "application/json": { schema } } };
}

/** The resource each event type carries as `data.object`, as the API shows it. */
const EVENT_OBJECT = {
  "payment.succeeded": paymentResource,
  "payment.failed": paymentResource,
  "payment.expired": paymentResource,
  "payment.unresolved": paymentResource,
  "refund.succeeded": refundResource,
  "refund.failed": refundResource,
  "settlement.paid": settlementResource,
  "checkout_session.completed": checkoutSessionResource,
  "webhook_endpoint.test": webhookEndpointResource,
} as const satisfies Record<EventType, z.ZodType>;

const duration = (s: number) => (s < 3600 ? `${s / 60} min` : `${s / 3600} h`);

/**
 * What Mari POSTs to an endpoint, one entry per event type (OpenAPI 3.1 `webhooks`): the event as
 * GET /v1/events/{id} shows it, signed, acknowledged and retried as spec §6 says.
 */
function webhookEntries() {
  const retries = RETRY_DELAYS_S.map(duration).join(", ");
  return Object.fromEntries(
    EVENT_TYPES.map((type) => [
      type,
      {
        post: {
          operationId: `webhook_${type.replace(".", "_")}`,
          summary: `The ${type} event, POSTed to each enabled endpoint subscribed to it.`,
          description:
            `Verify ${SIGNATURE_HEADER} on the raw body before parsing it. Acknowledge with any 2xx within ${DELIVERY_TIMEOUT_MS / 1000} s; ` +
            `anything else is retried after ${retries}, and not after ${GIVE_UP_AFTER_MS / 3_600_000} h. ` +
            "Deliveries may come out of order and rarely twice: deduplicate on the event's id and act on the object's current state.",
          parameters: [
            {
              name: SIGNATURE_HEADER,
              in: "header",
              required: true,
              description:
                "`t=<unix seconds>,v1=<hex>`: v1 is the lowercase hex HMAC-SHA256 of `<t>.<raw body>` keyed with the endpoint's secret (whsec_…). " +
                `During the ${ROLLED_SECRET_OVERLAP_MS / 3_600_000} h after a roll there are two v1=, one per secret. Refuse a t more than ${SIGNATURE_TOLERANCE_S} s from now.`,
              schema: { type: "string", pattern: "^t=\\d+(,v1=[0-9a-f]{64})+$" },
            },
          ],
          requestBody: {
            required: true,
            content: {
              "application/json": {
                schema: jsonSchema(
                  eventResource.extend({
                    type: z.literal(type),
                    data: eventResource.shape.data.extend({ object: EVENT_OBJECT[type] }),
                  }),
                  "output",
                ),
              },
            },
          },
          responses: { "2XX": { description: `Received. Any 2xx within ${DELIVERY_TIMEOUT_MS / 1000} s; the body is not read.` } },
        },
      },
    ]),
  );
}

/** OpenAPI 3.1, generated from the same zod schemas the handlers parse and shape with. */
export function openApiDocument(serverUrl: string) {
  const answered = new Set(OPERATIONS.flatMap((op) => [...errorCodesOf(op).values()].flat()));
  const v1Codes = (Object.keys(ERROR_CODES) as ErrorCode[]).filter((c) => answered.has(c));
  const paths: Record<string, Record<string, unknown>> = {};
  for (const op of OPERATIONS) {
    const parameters: unknown[] = Object.entries(op.pathParams ?? {}).map(([name, param]) => ({
      name,
      in: "path",
      required: true,
      description: param.description,
      schema: "values" in param ? { type: "string", enum: param.values } : { type: "string", pattern: idPattern(param.id) },
    }));
    if (op.query) {
      const schema = jsonSchema(op.query, "input") as { properties?: Record<string, unknown>; required?: string[] };
      for (const [name, prop] of Object.entries(schema.properties ?? {})) {
        parameters.push({ name, in: "query", required: schema.required?.includes(name) ?? false, schema: prop });
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
          description: op.responseDescription ?? "Success",
          headers: {
            "Request-Id": { $ref: "#/components/headers/Request-Id" },
            ...(op.idempotency !== "none" ? { "Idempotent-Replayed": { $ref: "#/components/headers/Idempotent-Replayed" } } : {}),
          },
          content: { "application/json": { schema: jsonSchema(op.response, "output") } },
        },
        ...Object.fromEntries(
          [...errorCodesOf(op)].filter(([status]) => status < 500).map(([status, codes]) => [String(status), errorResponse(op, status, codes)]),
        ),
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
      schemas: { Error: jsonSchema(errorSchema(v1Codes), "output") },
      headers: {
        "Request-Id": { description: "This request's id (`req_…`), also in an error's `request_id`: quote it to support.", schema: { type: "string" } },
        "Idempotent-Replayed": { description: "`true` when the answer is the stored one of an earlier request with the same Idempotency-Key.", schema: { type: "string", enum: ["true"] } },
        "Retry-After": { description: "Seconds to wait before the request can succeed.", schema: { type: "integer", minimum: 1 } },
      },
    },
    paths,
    webhooks: webhookEntries(),
  };
}
