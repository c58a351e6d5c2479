import { toPaymentResource } from "@/server/schemas/payments";
import { toEndpointResource } from "@/server/schemas/webhooks";
import { getOverview } from "@/server/services/overview/get-overview";
import { router, viewerProcedure } from "../init";

export const overviewRouter = router({
  /** The front page: volumes, success rates, counts, 14 days of volume, what needs attention. */
  get: viewerProcedure.query(async ({ ctx }) => {
    const o = await getOverview(ctx.service);
    return {
      today: o.today,
      week: o.week,
      days: o.days,
      unresolved: { count: o.unresolved.count, recent: o.unresolved.recent.map(toPaymentResource) },
      degradedEndpoints: o.degradedEndpoints.map((e) => toEndpointResource(e)),
    };
  }),
});
