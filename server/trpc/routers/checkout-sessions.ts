import { z } from "zod";
import { toCheckoutSessionResource } from "@/server/schemas/checkout-sessions";
import { listCheckoutSessions } from "@/server/services/checkout-sessions/list-checkout-sessions";
import { pageInput, router, viewerProcedure } from "../init";

/** Checkout sessions are made through the API only: the dashboard reads them. */
export const checkoutSessionsRouter = router({
  list: viewerProcedure.input(z.object(pageInput)).query(async ({ ctx, input }) => {
    const page = await listCheckoutSessions(ctx.service, input);
    const now = ctx.service.clock.now();
    return { data: page.data.map((s) => toCheckoutSessionResource(s, now)), hasMore: page.hasMore };
  }),
});
