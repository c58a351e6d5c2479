import { checkoutSessions, type CheckoutSession } from "@/db/schema";
import { violatedUniqueConstraint } from "@/db/errors";
import { SESSION_EXPIRES_IN } from "@/server/domain/checkout";
import { invalidParam, referenceInUse } from "@/server/domain/errors";
import { newId } from "@/server/domain/ids";
import type { Currency } from "@/server/domain/money";
import type { ServiceContext } from "@/server/context";
import type { ResponseRecord } from "@/server/services/idempotency/completion";
import { writeWithResponse } from "@/server/services/idempotency/with-response";

export type CreateCheckoutSessionInput = {
  amount: number;
  currency: Currency;
  reference: string;
  metadata?: Record<string, string>;
  successUrl: string;
  cancelUrl?: string;
  /** Seconds; SESSION_EXPIRES_IN.default when omitted. */
  expiresIn?: number;
  /** The request's idempotency record: the session and the answer naming it commit together. */
  response?: ResponseRecord<CheckoutSession>;
};

/**
 * One order's hosted checkout. Its reference follows the payments' rule: taken by another session
 * (the unique index) or by a payment (a trigger, migration 0009) → reference_in_use. Its attempts' payments are `reference#n`.
 */
export async function createCheckoutSession(ctx: ServiceContext, input: CreateCheckoutSessionInput): Promise<CheckoutSession> {
  // Live customers are sent back over https only; test mode lets a developer use http://localhost.
  if (ctx.livemode) {
    for (const [param, url] of [["success_url", input.successUrl], ["cancel_url", input.cancelUrl]] as const) {
      if (url !== undefined && new URL(url).protocol !== "https:") throw invalidParam(param, `${param} must use https in live mode.`);
    }
  }
  const now = ctx.clock.now();
  try {
    return await writeWithResponse(ctx.db, input.response, async (tx) => {
      const [row] = await tx
        .insert(checkoutSessions)
        .values({
          id: newId("checkoutSession", now),
          merchantId: ctx.merchant.id,
          livemode: ctx.livemode,
          amount: input.amount,
          currency: input.currency,
          reference: input.reference,
          metadata: input.metadata ?? {},
          successUrl: input.successUrl,
          cancelUrl: input.cancelUrl ?? null,
          expiresAt: new Date(now.getTime() + (input.expiresIn ?? SESSION_EXPIRES_IN.default) * 1000),
          createdAt: now,
          updatedAt: now,
        })
        .returning();
      return row!;
    });
  } catch (e) {
    // Another session holds the reference (the unique index), or a payment does (migration 0009's trigger).
    const constraint = violatedUniqueConstraint(e);
    if (constraint === "checkout_sessions_reference_key") throw referenceInUse(input.reference, "checkout session");
    if (constraint === "payments_reference_key") throw referenceInUse(input.reference);
    throw e;
  }
}
