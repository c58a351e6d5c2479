import { apiRoute, listResponse, notFoundRoute } from "@/server/http/api-route";
import { settlementOperations, toSettlementResource } from "@/server/schemas/settlements";
import { runTestSettlements } from "@/server/services/settlements/run-settlements";

// POST /v1/test_helpers/settlements/run – test keys only: make this merchant's batches now
export const POST = apiRoute(settlementOperations.testRun, async ({ ctx, url }) =>
  listResponse(url, { data: await runTestSettlements(ctx), hasMore: false }, toSettlementResource),
);

// Other methods get the same 404 envelope as an unknown URL, not an empty 405.
export { notFoundRoute as GET, notFoundRoute as PUT, notFoundRoute as PATCH, notFoundRoute as DELETE, notFoundRoute as OPTIONS };
