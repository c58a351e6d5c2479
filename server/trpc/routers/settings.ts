import { z } from "zod";
import type { Merchant } from "@/db/schema";
import { FEE_BEARERS } from "@/server/domain/fees";
import { updateMerchantSettings } from "@/server/services/merchants/update-merchant-settings";
import { adminProcedure, router, viewerProcedure } from "../init";

/** The fee plan goes too, so forms quote what a customer will pay with the one fee function (quoteFee). */
const view = (m: Merchant) => ({ merchant: { id: m.id, name: m.name }, fee_plan: m.feePlan, fee_bearer: m.feeBearer, payment_expiry_seconds: m.paymentExpirySeconds });

export const settingsRouter = router({
  /** The merchant row is read fresh on every dashboard request, so this is current. */
  get: viewerProcedure.query(({ ctx }) => view(ctx.service.merchant)),

  /** Bounds are checked by the verb, which names the field in its error. */
  update: adminProcedure
    .input(z.object({ feeBearer: z.enum(FEE_BEARERS).optional(), paymentExpirySeconds: z.number().int().optional() }))
    .mutation(async ({ ctx, input }) => view(await updateMerchantSettings(ctx.service, input))),
});
