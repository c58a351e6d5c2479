import { z } from "zod";
import { DELIVERY_STATUSES, type WebhookAttempt, type WebhookDelivery, type WebhookEndpoint } from "@/db/schema";
import { EVENT_TYPES, SUBSCRIBABLE_EVENT_TYPES } from "@/server/domain/events";
import { ALL_EVENTS, DEGRADED_AFTER_FAILURES, DELIVERY_LEASE_MS } from "@/server/domain/webhooks";
import { defineOperation, idParam, limitParam, listEnvelope, metadataSchema, oneCursor, timestamp, iso, unsetWhenNull } from "./common";

const url = z
  .string({ error: "url must be a string" })
  .min(1, "url must not be empty")
  .max(2048, "url must be at most 2048 characters")
  .describe("Where events are POSTed. https in live mode; http is allowed in test mode.");

const enabledEvents = z
  .array(z.enum([ALL_EVENTS, ...SUBSCRIBABLE_EVENT_TYPES], { error: `must be "*" or one of ${SUBSCRIBABLE_EVENT_TYPES.join(", ")}` }), {
    error: 'enabled_events must be a list of event types, or ["*"]',
  })
  .min(1, "enabled_events must name at least one event type, or be [\"*\"]")
  .max(SUBSCRIBABLE_EVENT_TYPES.length + 1, `enabled_events may name at most ${SUBSCRIBABLE_EVENT_TYPES.length + 1} entries`)
  .transform((list) => (list.includes(ALL_EVENTS) ? [ALL_EVENTS] : [...new Set(list)]))
  .describe(`Event types to receive, or ["*"] for all.`);

const description = z.string({ error: "description must be a string" }).max(500, "description must be at most 500 characters");

export const createEndpointBody = z.strictObject({
  url,
  enabled_events: enabledEvents,
  description: unsetWhenNull(description),
  metadata: metadataSchema.optional(),
});

export const updateEndpointBody = z.strictObject({
  url: url.optional(),
  enabled_events: enabledEvents.optional(),
  description: description.nullable().optional(),
  metadata: metadataSchema.optional().describe('Merged into the endpoint\'s metadata: the keys sent are set, a key sent as "" is removed, the others stay.'),
  disabled: z.boolean({ error: "disabled must be a boolean" }).optional().describe("true stops deliveries; false resumes them."),
});

export const webhookEndpointResource = z.object({
  id: z.string().describe("Starts with we_."),
  object: z.literal("webhook_endpoint"),
  livemode: z.boolean(),
  url: z.string(),
  enabled_events: z.array(z.string()),
  description: z.string().nullable(),
  metadata: z.record(z.string(), z.string()),
  status: z.enum(["enabled", "disabled"]),
  health: z.enum(["healthy", "degraded"]).describe(`degraded after ${DEGRADED_AFTER_FAILURES} failed attempts in a row, healthy again on the first success.`),
  degraded_since: timestamp.nullable(),
  consecutive_failures: z.number().int(),
  created_at: timestamp,
  previous_secret_expires_at: timestamp.nullable().describe("While set, deliveries are signed with the rolled secret too."),
});
export type WebhookEndpointResource = z.infer<typeof webhookEndpointResource>;
/** The answer to create and roll_secret: the endpoint with its secret, always. Reads never show it. */
const endpointWithSecret = webhookEndpointResource.extend({ secret: z.string().describe("The signing secret (whsec_…): shown in this answer only.") });
export type WebhookEndpointWithSecret = z.infer<typeof endpointWithSecret>;

export function toEndpointResource(e: WebhookEndpoint, opts: { withSecret: true; now?: Date }): WebhookEndpointWithSecret;
export function toEndpointResource(e: WebhookEndpoint, opts?: { withSecret?: false; now?: Date }): WebhookEndpointResource;
export function toEndpointResource(e: WebhookEndpoint, opts: { withSecret?: boolean; now?: Date } = {}): WebhookEndpointResource | WebhookEndpointWithSecret {
  const overlapping = e.previousSecretExpiresAt && (!opts.now || e.previousSecretExpiresAt > opts.now) ? e.previousSecretExpiresAt : null;
  return {
    id: e.id,
    object: "webhook_endpoint",
    livemode: e.livemode,
    url: e.url,
    enabled_events: e.enabledEvents,
    description: e.description,
    metadata: e.metadata,
    status: e.status,
    health: e.degradedSince ? "degraded" : "healthy",
    degraded_since: iso(e.degradedSince),
    consecutive_failures: e.consecutiveFailures,
    created_at: e.createdAt.toISOString(),
    ...(opts.withSecret ? { secret: e.secret } : {}),
    previous_secret_expires_at: iso(overlapping),
  };
}

export const webhookAttemptResource = z.object({
  attempted_at: timestamp,
  status_code: z.number().int().nullable(),
  latency_ms: z.number().int(),
  error: z.string().nullable(),
  response_body: z.string().describe("The first 1 KB of the receiver's answer."),
});

export const webhookDeliveryResource = z.object({
  id: z.string().describe("Starts with whd_."),
  object: z.literal("webhook_delivery"),
  livemode: z.boolean(),
  event: z.string(),
  event_type: z.enum(EVENT_TYPES),
  endpoint: z.string(),
  status: z.enum(DELIVERY_STATUSES),
  reason: z.enum(["event", "replay"]),
  attempt_count: z.number().int(),
  next_attempt_at: timestamp.nullable().describe(`When the next attempt is due; null once delivered or failed. While an attempt is being made, when it is made again should that one never finish (${DELIVERY_LEASE_MS / 1000} s on).`),
  delivered_at: timestamp.nullable(),
  created_at: timestamp,
  attempts: z.array(webhookAttemptResource),
});
export type WebhookDeliveryResource = z.infer<typeof webhookDeliveryResource>;

export type DeliveryWithAttempts = WebhookDelivery & { eventType: (typeof EVENT_TYPES)[number]; attempts: WebhookAttempt[] };

export function toDeliveryResource(d: DeliveryWithAttempts): WebhookDeliveryResource {
  return {
    id: d.id,
    object: "webhook_delivery",
    livemode: d.livemode,
    event: d.eventId,
    event_type: d.eventType,
    endpoint: d.endpointId,
    status: d.status,
    reason: d.reason,
    attempt_count: d.attemptCount,
    next_attempt_at: d.status === "pending" ? iso(d.nextAttemptAt) : null,
    delivered_at: iso(d.deliveredAt),
    created_at: d.createdAt.toISOString(),
    attempts: d.attempts.map((a) => ({
      attempted_at: a.attemptedAt.toISOString(),
      status_code: a.statusCode,
      latency_ms: a.latencyMs,
      error: a.error,
      response_body: a.responseBody,
    })),
  };
}

const endpointCursor = idParam("webhookEndpoint", "a webhook endpoint id");
const deliveryCursor = idParam("webhookDelivery", "a webhook delivery id");

export const listEndpointsQuery = z
  .strictObject({ limit: limitParam, starting_after: endpointCursor.optional(), ending_before: endpointCursor.optional() })
  .refine(...oneCursor);

export const listDeliveriesQuery = z
  .strictObject({
    limit: limitParam,
    starting_after: deliveryCursor.optional(),
    ending_before: deliveryCursor.optional(),
    event: idParam("event", "an event id").optional(),
    endpoint: endpointCursor.optional(),
    status: z.enum(DELIVERY_STATUSES).optional(),
  })
  .refine(...oneCursor);

const endpointPath = { id: { description: "The endpoint's id (we_…).", id: "webhookEndpoint" } } as const;

export const webhookOperations = {
  createEndpoint: defineOperation({
    operationId: "createWebhookEndpoint",
    method: "POST",
    path: "/v1/webhook_endpoints",
    summary: "Register a URL for events. The answer carries the signing secret; it is not shown again.",
    tag: "Webhooks",
    scope: "webhooks:write",
    body: createEndpointBody,
    secretInResponse: true,
    idempotency: "optional",
    status: 201,
    response: endpointWithSecret,
  }),
  listEndpoints: defineOperation({
    operationId: "listWebhookEndpoints",
    method: "GET",
    path: "/v1/webhook_endpoints",
    summary: "List webhook endpoints, newest first.",
    tag: "Webhooks",
    scope: "webhooks:read",
    query: listEndpointsQuery,
    idempotency: "none",
    status: 200,
    response: listEnvelope(webhookEndpointResource),
  }),
  retrieveEndpoint: defineOperation({
    operationId: "retrieveWebhookEndpoint",
    method: "GET",
    path: "/v1/webhook_endpoints/{id}",
    summary: "Retrieve a webhook endpoint with its health.",
    tag: "Webhooks",
    scope: "webhooks:read",
    idempotency: "none",
    status: 200,
    response: webhookEndpointResource,
    pathParams: endpointPath,
  }),
  updateEndpoint: defineOperation({
    operationId: "updateWebhookEndpoint",
    method: "POST",
    path: "/v1/webhook_endpoints/{id}",
    summary: "Change the URL, events or description, or disable and enable it.",
    tag: "Webhooks",
    scope: "webhooks:write",
    body: updateEndpointBody,
    idempotency: "optional",
    status: 200,
    response: webhookEndpointResource,
    pathParams: endpointPath,
  }),
  deleteEndpoint: defineOperation({
    operationId: "deleteWebhookEndpoint",
    method: "DELETE",
    path: "/v1/webhook_endpoints/{id}",
    summary: "Delete an endpoint: nothing more is sent to it.",
    tag: "Webhooks",
    scope: "webhooks:write",
    idempotency: "optional",
    status: 200,
    response: z.object({ id: z.string(), object: z.literal("webhook_endpoint"), livemode: z.boolean(), deleted: z.literal(true) }),
    pathParams: endpointPath,
  }),
  rollSecret: defineOperation({
    operationId: "rollWebhookSecret",
    method: "POST",
    path: "/v1/webhook_endpoints/{id}/roll_secret",
    summary: "New signing secret; the old one keeps signing alongside it for 24 h. One old secret at a time: a second roll within the 24 h replaces it.",
    tag: "Webhooks",
    scope: "webhooks:write",
    secretInResponse: true,
    idempotency: "optional",
    status: 200,
    response: endpointWithSecret,
    pathParams: endpointPath,
  }),
  listDeliveries: defineOperation({
    operationId: "listWebhookDeliveries",
    method: "GET",
    path: "/v1/webhook_deliveries",
    summary: "List deliveries with their attempts, newest first; filter by event, endpoint, status.",
    tag: "Webhooks",
    scope: "webhooks:read",
    query: listDeliveriesQuery,
    idempotency: "none",
    status: 200,
    response: listEnvelope(webhookDeliveryResource),
  }),
};
