import { apiRoute, listResponse, notFoundRoute } from "@/server/http/api-route";
import { settlementOperations, toSettlementResource } from "@/server/schemas/settlements";
import { listSettlements } from "@/server/services/settlements/list-settlements";

// GET /v1/settlements – payouts, newest first
export const GET = apiRoute(settlementOperations.list, async ({ ctx, query, url }) =>
  listResponse(
    url,
    await listSettlements(ctx, { status: query.status }, { limit: query.limit, startingAfter: query.starting_after, endingBefore: query.ending_before }),
    toSettlementResource,
  ),
);

// Other methods get the same 404 envelope as an unknown URL, not an empty 405.
export { notFoundRoute as POST, notFoundRoute as PUT, notFoundRoute as PATCH, notFoundRoute as DELETE, notFoundRoute as OPTIONS };
