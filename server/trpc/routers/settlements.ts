import { TRPCError } from "@trpc/server";
import { z } from "zod";
import type { Settlement } from "@/db/schema";
import { SETTLEMENT_STATUSES } from "@/server/domain/settlements";
import { toSettlementLineResource, toSettlementResource } from "@/server/schemas/settlements";
import { getSettlement } from "@/server/services/settlements/get-settlement";
import { listSettlementLines, listSettlements } from "@/server/services/settlements/list-settlements";
import type { ServiceContext } from "@/server/context";
import { confirmSettlementPayout, failSettlementPayout } from "@/server/services/settlements/pay-settlement";
import { adminProcedure, confirmCallerPassword, confirmPasswordInput, objectId, pageInput, router, viewerProcedure } from "../init";

/** Live batches wait for an operator to confirm the bank transfer; test batches pay themselves. */
const view = (s: Settlement) => ({ ...toSettlementResource(s), awaiting_payout_confirmation: s.livemode && s.status === "pending" });

/** A payout is confirmed or failed by hand in live mode only: a test batch's id (of this mode) is refused as such. */
async function liveOnly(ctx: ServiceContext, id: string): Promise<void> {
  if (ctx.livemode) return;
  await getSettlement(ctx, id);
  throw new TRPCError({ code: "BAD_REQUEST", message: "Test batches are paid out automatically; only live batches are confirmed or failed by hand." });
}

export const settlementsRouter = router({
  list: viewerProcedure.input(z.object({ ...pageInput, status: z.enum(SETTLEMENT_STATUSES).optional() })).query(async ({ ctx, input }) => {
    const page = await listSettlements(ctx.service, { status: input.status }, input);
    return { data: page.data.map(view), hasMore: page.hasMore };
  }),

  get: viewerProcedure.input(z.object({ id: objectId })).query(async ({ ctx, input }) => view(await getSettlement(ctx.service, input.id))),

  /** Line items keyed by their payment or refund id. */
  lines: viewerProcedure.input(z.object({ id: objectId, ...pageInput })).query(async ({ ctx, input }) => {
    const page = await listSettlementLines(ctx.service, input.id, input);
    return { data: page.data.map(toSettlementLineResource), hasMore: page.hasMore };
  }),

  /** An admin records that a live batch reached the bank; confirming twice is harmless. */
  confirmPayout: adminProcedure.input(z.object({ id: objectId })).mutation(async ({ ctx, input }) => {
    await liveOnly(ctx.service, input.id);
    return view(await confirmSettlementPayout(ctx.service, input.id));
  }),

  /**
   * An admin records that a live payout bounced: its payments and refunds go into the next batch,
   * which pays them again. So it asks for the admin's password, as anything else that moves money does.
   */
  failPayout: adminProcedure
    .input(z.object({ id: objectId, reason: z.string().trim().min(1, "Say why the payout failed.").max(500), confirmPassword: confirmPasswordInput }))
    .mutation(async ({ ctx, input }) => {
      await confirmCallerPassword(ctx, input.confirmPassword);
      await liveOnly(ctx.service, input.id);
      return view(await failSettlementPayout(ctx.service, input.id, input.reason));
    }),
});
