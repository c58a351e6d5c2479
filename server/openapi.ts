import { z } from "zod";
import { ERROR_CODES, ERROR_TYPES } from "@/server/domain/errors";
import { HTTP_STATUS } from "@/server/http/errors";
import type { Operation } from "@/server/schemas/common";
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

const jsonSchema = (schema: z.ZodType, io: "input" | "output") =>
  z.toJSONSchema(schema, { target: "draft-2020-12", io, unrepresentable: "any" }) as Record<string, unknown>;

/** OpenAPI 3.1, generated from the same zod schemas the handlers parse and shape with. */
export function openApiDocument(serverUrl: string) {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const op of OPERATIONS) {
    const parameters: unknown[] = Object.entries(op.pathParams ?? {}).map(([name, description]) => ({
      name,
      in: "path",
      required: true,
      description,
      schema: { type: "string" },
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
        description: "Up to 255 characters, remembered for 24 hours per merchant and environment.",
        schema: { type: "string", maxLength: 255 },
      });
    }
    paths[op.path] ??= {};
    paths[op.path]![op.method.toLowerCase()] = {
      operationId: op.operationId,
      summary: op.summary,
      tags: [op.tag],
      ...(op.scope ? { security: [{ bearerAuth: [] }], "x-scope": op.scope } : {}),
      parameters,
      ...(op.body ? { requestBody: { required: true, content: { "application/json": { schema: jsonSchema(op.body, "input") } } } } : {}),
      responses: {
        [op.status]: { description: "Success", content: { "application/json": { schema: jsonSchema(op.response, "output") } } },
        default: { description: "Error", content: { "application/json": { schema: { $ref: "#/components/schemas/Error" } } } },
      },
    };
  }
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
      securitySchemes: { bearerAuth: { type: "http", scheme: "bearer", description: "sk_test_…, sk_live_…, rk_test_…, rk_live_…" } },
      schemas: { Error: jsonSchema(errorSchema, "output") },
    },
    paths,
  };
}
