import { paymentLinks, type PaymentLink } from "@/db/schema";
import { invalidParam } from "@/server/domain/errors";
import { newId } from "@/server/domain/ids";
import type { Currency } from "@/server/domain/money";
import type { ServiceContext } from "@/server/context";
import type { ResponseRecord } from "@/server/services/idempotency/completion";
import { writeWithResponse } from "@/server/services/idempotency/with-response";

export type CreatePaymentLinkInput = {
  amount: number;
  currency: Currency;
  description: string;
  singleUse?: boolean;
  expiresAt?: Date;
  metadata?: Record<string, string>;
  /** The request's idempotency record: the link and the answer naming it commit together. */
  response?: ResponseRecord<PaymentLink>;
};

export async function createPaymentLink(ctx: ServiceContext, input: CreatePaymentLinkInput): Promise<PaymentLink> {
  const now = ctx.clock.now();
  if (input.expiresAt && input.expiresAt.getTime() <= now.getTime()) {
    throw invalidParam("expires_at", "expires_at must be in the future.");
  }
  return writeWithResponse(ctx.db, input.response, async (tx) => {
    const [row] = await tx
      .insert(paymentLinks)
      .values({
        id: newId("paymentLink", now),
        merchantId: ctx.merchant.id,
        livemode: ctx.livemode,
        amount: input.amount,
        currency: input.currency,
        description: input.description,
        singleUse: input.singleUse ?? false,
        expiresAt: input.expiresAt ?? null,
        metadata: input.metadata ?? {},
        createdAt: now,
        updatedAt: now,
      })
      .returning();
    return row!;
  });
}
