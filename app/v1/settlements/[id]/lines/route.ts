import { apiRoute, listResponse, notFoundRoute } from "@/server/http/api-route";
import { settlementOperations, toSettlementLineResource } from "@/server/schemas/settlements";
import { listSettlementLines } from "@/server/services/settlements/list-settlements";

// GET /v1/settlements/{id}/lines – a batch's line items, keyset-paginated
export const GET = apiRoute(settlementOperations.lines, async ({ ctx, params, query, url }) =>
  listResponse(
    url,
    await listSettlementLines(ctx, params.id!, { limit: query.limit, startingAfter: query.starting_after, endingBefore: query.ending_before }),
    toSettlementLineResource,
  ),
);

// Other methods get the same 404 envelope as an unknown URL, not an empty 405.
export { notFoundRoute as POST, notFoundRoute as PUT, notFoundRoute as PATCH, notFoundRoute as DELETE, notFoundRoute as OPTIONS };
