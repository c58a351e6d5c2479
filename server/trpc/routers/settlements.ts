import { TRPCError } from "@trpc/server";
import { z } from "zod";
import type { Settlement } from "@/db/schema";
import { SETTLEMENT_STATUSES } from "@/server/domain/settlements";
import { toSettlementLineResource, toSettlementResource } from "@/server/schemas/settlements";
import { getSettlement } from "@/server/services/settlements/get-settlement";
import { listSettlementLines, listSettlements } from "@/server/services/settlements/list-settlements";
import { confirmSettlementPayout } from "@/server/services/settlements/pay-settlement";
import { adminProcedure, objectId, pageInput, router, viewerProcedure } from "../init";

/** Live batches wait for an operator to confirm the bank transfer; test batches pay themselves. */
const view = (s: Settlement) => ({ ...toSettlementResource(s), awaiting_payout_confirmation: s.livemode && s.status === "pending" });

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
    if (!ctx.service.livemode) {
      await getSettlement(ctx.service, input.id);
      throw new TRPCError({ code: "BAD_REQUEST", message: "Test batches are paid out automatically; only live batches are confirmed by hand." });
    }
    return view(await confirmSettlementPayout(ctx.service, input.id));
  }),
});
