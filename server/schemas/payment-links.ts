import { z } from "zod";
import type { PaymentLink } from "@/db/schema";
import { CURRENCIES } from "@/server/domain/money";
import { env } from "@/server/env";
import { defineOperation, idParam, limitParam, listEnvelope, metadataSchema, oneCursor, timeBound, timestamp, unsetWhenNull } from "./common";
import { amount, currency } from "./payments";

export const createPaymentLinkBody = z.strictObject({
  amount,
  currency,
  description: z
    .string({ error: "description must be a string" })
    .min(1, "description must not be empty")
    // Shown to the customer as what they pay for: spaces alone say nothing.
    .regex(/\S/, "description must not be blank")
    .max(500, "description must be at most 500 characters")
    .describe("What the customer pays for; shown on the link's page."),
  single_use: z.boolean({ error: "single_use must be a boolean" }).optional().describe("true: the link takes one payment (a failed or expired attempt does not count)."),
  expires_at: unsetWhenNull(timeBound).describe("RFC 3339 timestamp or Unix seconds, in the future. Omitted: the link does not expire."),
  metadata: metadataSchema.optional(),
});

export const paymentLinkResource = z.object({
  id: z.string().describe("Starts with plink_."),
  object: z.literal("payment_link"),
  livemode: z.boolean(),
  url: z.string().describe("The page customers pay on."),
  active: z.boolean().describe("false once deactivated. An expired link stays active but takes no payment."),
  amount: z.number().int(),
  currency: z.enum(CURRENCIES),
  description: z.string(),
  single_use: z.boolean(),
  expires_at: timestamp.nullable(),
  metadata: z.record(z.string(), z.string()).describe("Copied onto every payment made through the link."),
  created_at: timestamp,
  deactivated_at: timestamp.nullable(),
});
export type PaymentLinkResource = z.infer<typeof paymentLinkResource>;

export function toPaymentLinkResource(l: PaymentLink): PaymentLinkResource {
  return {
    id: l.id,
    object: "payment_link",
    livemode: l.livemode,
    url: `${env().PUBLIC_BASE_URL}/pay/${l.id}`,
    active: l.active,
    amount: l.amount,
    currency: l.currency,
    description: l.description,
    single_use: l.singleUse,
    expires_at: l.expiresAt ? l.expiresAt.toISOString() : null,
    metadata: l.metadata,
    created_at: l.createdAt.toISOString(),
    deactivated_at: l.deactivatedAt ? l.deactivatedAt.toISOString() : null,
  };
}

const linkCursor = idParam("paymentLink", "a payment link id");

export const listPaymentLinksQuery = z
  .strictObject({
    limit: limitParam,
    starting_after: linkCursor.optional().describe("A payment link id: return the page after it (older)."),
    ending_before: linkCursor.optional().describe("A payment link id: return the page before it (newer)."),
    active: z
      .enum(["true", "false"], { error: "active must be true or false" })
      .transform((v) => v === "true")
      .optional(),
  })
  .refine(...oneCursor);

const linkPath = { id: { description: "The payment link's id (plink_…).", id: "paymentLink" } } as const;

export const paymentLinkOperations = {
  create: defineOperation({
    operationId: "createPaymentLink",
    method: "POST",
    path: "/v1/payment_links",
    summary: "Create a payment link: a page that charges a fixed amount to whoever opens it.",
    tag: "Payment links",
    scope: "links:write",
    body: createPaymentLinkBody,
    idempotency: "optional",
    status: 201,
    response: paymentLinkResource,
  }),
  list: defineOperation({
    operationId: "listPaymentLinks",
    method: "GET",
    path: "/v1/payment_links",
    summary: "List payment links, newest first.",
    tag: "Payment links",
    scope: "links:read",
    query: listPaymentLinksQuery,
    idempotency: "none",
    status: 200,
    response: listEnvelope(paymentLinkResource),
  }),
  retrieve: defineOperation({
    operationId: "retrievePaymentLink",
    method: "GET",
    path: "/v1/payment_links/{id}",
    summary: "Retrieve a payment link.",
    tag: "Payment links",
    scope: "links:read",
    idempotency: "none",
    status: 200,
    response: paymentLinkResource,
    pathParams: linkPath,
  }),
  deactivate: defineOperation({
    operationId: "deactivatePaymentLink",
    method: "POST",
    path: "/v1/payment_links/{id}/deactivate",
    summary: "Deactivate a payment link: it takes no more payments. Deactivating again changes nothing.",
    tag: "Payment links",
    scope: "links:write",
    idempotency: "optional",
    status: 200,
    response: paymentLinkResource,
    pathParams: linkPath,
  }),
};
