import { z } from "zod";
import type { CheckoutSession } from "@/db/schema";
import { CHECKOUT_SESSION_STATUSES, checkoutSessionStatus, SESSION_EXPIRES_IN } from "@/server/domain/checkout";
import { CURRENCIES } from "@/server/domain/money";
import { env } from "@/server/env";
import { defineOperation, idParam, limitParam, listEnvelope, metadataSchema, oneCursor, timestamp, unsetWhenNull } from "./common";
import { amount, currency, reference } from "./payments";

/** Where the checkout page sends the customer afterwards: an absolute http(s) URL (https in live mode, checked by the service). */
const redirectUrl = (name: string) =>
  z
    .string({ error: `${name} must be a string` })
    .max(2048, `${name} must be at most 2048 characters`)
    .refine((v) => URL.canParse(v) && ["http:", "https:"].includes(new URL(v).protocol), `${name} must be an absolute http or https URL`);

export const createCheckoutSessionBody = z.strictObject({
  amount,
  currency,
  reference: reference.describe("Your order's reference, unique among payments and checkout sessions. Attempts are `reference#1`, `reference#2`…"),
  metadata: metadataSchema.optional(),
  success_url: redirectUrl("success_url").describe("Where the customer goes once paid. https in live mode."),
  cancel_url: unsetWhenNull(redirectUrl("cancel_url")).describe("Where the customer goes on giving up. https in live mode."),
  expires_in: z
    .number({ error: "expires_in must be a number of seconds" })
    .int("expires_in must be a whole number of seconds")
    .min(SESSION_EXPIRES_IN.min, `expires_in must be at least ${SESSION_EXPIRES_IN.min} seconds`)
    .max(SESSION_EXPIRES_IN.max, `expires_in must be at most ${SESSION_EXPIRES_IN.max} seconds`)
    .optional()
    .describe(`Seconds until the session closes, ${SESSION_EXPIRES_IN.min}–${SESSION_EXPIRES_IN.max} (default ${SESSION_EXPIRES_IN.default}).`),
});

export const checkoutSessionResource = z.object({
  id: z.string().describe("Starts with cs_."),
  object: z.literal("checkout_session"),
  livemode: z.boolean(),
  url: z.string().describe("The hosted page to send the customer to."),
  status: z.enum(CHECKOUT_SESSION_STATUSES).describe("open, then complete once a payment succeeds; an open session past expires_at is expired."),
  amount: z.number().int(),
  currency: z.enum(CURRENCIES),
  reference: z.string(),
  metadata: z.record(z.string(), z.string()).describe("Copied onto every attempt's payment."),
  success_url: z.string(),
  cancel_url: z.string().nullable(),
  expires_at: timestamp,
  payment: z.string().nullable().describe("The latest attempt's payment (pay_…); once complete, the one that succeeded."),
  created_at: timestamp,
  completed_at: timestamp.nullable(),
});
export type CheckoutSessionResource = z.infer<typeof checkoutSessionResource>;

export function toCheckoutSessionResource(s: CheckoutSession, now: Date): CheckoutSessionResource {
  return {
    id: s.id,
    object: "checkout_session",
    livemode: s.livemode,
    url: `${env().PUBLIC_BASE_URL}/checkout/${s.id}`,
    status: checkoutSessionStatus(s, now),
    amount: s.amount,
    currency: s.currency,
    reference: s.reference,
    metadata: s.metadata,
    success_url: s.successUrl,
    cancel_url: s.cancelUrl,
    expires_at: s.expiresAt.toISOString(),
    payment: s.paymentId,
    created_at: s.createdAt.toISOString(),
    completed_at: s.completedAt ? s.completedAt.toISOString() : null,
  };
}

const sessionCursor = idParam("checkoutSession", "a checkout session id");

export const listCheckoutSessionsQuery = z
  .strictObject({
    limit: limitParam,
    starting_after: sessionCursor.optional().describe("A checkout session id: return the page after it (older)."),
    ending_before: sessionCursor.optional().describe("A checkout session id: return the page before it (newer)."),
  })
  .refine(...oneCursor);

export const checkoutSessionOperations = {
  create: defineOperation({
    operationId: "createCheckoutSession",
    method: "POST",
    path: "/v1/checkout_sessions",
    summary: "Create a hosted checkout for one order; the customer may retry until a payment succeeds or it expires.",
    tag: "Checkout sessions",
    scope: "payments:write",
    body: createCheckoutSessionBody,
    idempotency: "optional",
    errors: ["reference_in_use"],
    status: 201,
    response: checkoutSessionResource,
  }),
  list: defineOperation({
    operationId: "listCheckoutSessions",
    method: "GET",
    path: "/v1/checkout_sessions",
    summary: "List checkout sessions, newest first.",
    tag: "Checkout sessions",
    scope: "payments:read",
    query: listCheckoutSessionsQuery,
    idempotency: "none",
    status: 200,
    response: listEnvelope(checkoutSessionResource),
  }),
  retrieve: defineOperation({
    operationId: "retrieveCheckoutSession",
    method: "GET",
    path: "/v1/checkout_sessions/{id}",
    summary: "Retrieve a checkout session.",
    tag: "Checkout sessions",
    scope: "payments:read",
    idempotency: "none",
    status: 200,
    response: checkoutSessionResource,
    pathParams: { id: { description: "The checkout session's id (cs_…).", id: "checkoutSession" } },
  }),
};
