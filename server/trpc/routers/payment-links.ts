import { z } from "zod";
import type { Merchant, PaymentLink } from "@/db/schema";
import { quoteFee } from "@/server/domain/fees";
import { CURRENCIES, MAX_AMOUNT } from "@/server/domain/money";
import { linkStatus } from "@/server/domain/payment-links";
import type { PaymentStatus } from "@/server/domain/payment-status";
import { timeBound } from "@/server/schemas/common";
import { toPaymentLinkResource } from "@/server/schemas/payment-links";
import { createPaymentLink } from "@/server/services/payment-links/create-payment-link";
import { deactivatePaymentLink } from "@/server/services/payment-links/deactivate-payment-link";
import { listPaymentLinks } from "@/server/services/payment-links/list-payment-links";
import { singleUseLinkHolders } from "@/server/services/payments/payments-through";
import { developerProcedure, objectId, pageInput, router, viewerProcedure } from "../init";
import { formKeyInput, once } from "../once";

/**
 * The link as /v1 shows it, with its status for staff (linkStatus): deactivated, used,
 * unresolved, paying, expired or active; and what a customer pays through it at today's fee settings (the fee added
 * when they bear it), as its page quotes it.
 */
function linkView(l: PaymentLink, holder: PaymentStatus | undefined, now: Date, merchant: Merchant) {
  return { ...toPaymentLinkResource(l), status: linkStatus(l, holder, now), charged_amount: quoteFee(merchant.feePlan, merchant.feeBearer, l.amount, l.currency).charged_amount };
}

export const paymentLinksRouter = router({
  list: viewerProcedure
    .input(z.object({ ...pageInput, active: z.boolean().optional() }))
    .query(async ({ ctx, input }) => {
      const page = await listPaymentLinks(ctx.service, { active: input.active }, input);
      const holders = await singleUseLinkHolders(ctx.service.db, page.data);
      const now = ctx.service.clock.now();
      return { data: page.data.map((l) => linkView(l, holders.get(l.id), now, ctx.service.merchant)), hasMore: page.hasMore };
    }),

  /** Amount in minor units, as /v1 takes it (the form converts the typed decimal without floats). */
  create: developerProcedure
    .input(
      z.object({
        amount: z.number().int().min(1).max(MAX_AMOUNT),
        currency: z.enum(CURRENCIES),
        description: z.string().trim().min(1).max(500),
        singleUse: z.boolean().default(false),
        expiresAt: timeBound.optional(),
        formKey: formKeyInput.optional(),
      }),
    )
    .mutation(({ ctx, input }) =>
      once(
        ctx.service,
        "paymentLinks.create",
        input.formKey,
        (record) =>
          createPaymentLink(ctx.service, {
            amount: input.amount,
            currency: input.currency,
            description: input.description,
            singleUse: input.singleUse,
            expiresAt: input.expiresAt,
            response: record,
          }),
        (link: PaymentLink) => linkView(link, undefined, ctx.service.clock.now(), ctx.service.merchant),
      ),
    ),

  deactivate: developerProcedure.input(z.object({ id: objectId })).mutation(async ({ ctx, input }) => {
    return linkView(await deactivatePaymentLink(ctx.service, input.id), undefined, ctx.service.clock.now(), ctx.service.merchant);
  }),
});
