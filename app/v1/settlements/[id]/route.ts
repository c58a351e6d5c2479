import { apiRoute, listResponse, notFoundRoute } from "@/server/http/api-route";
import { settlementOperations, toSettlementLineResource, toSettlementResource } from "@/server/schemas/settlements";
import { listSettlementLines } from "@/server/services/settlements/list-settlements";
import { getSettlement } from "@/server/services/settlements/get-settlement";

// GET /v1/settlements/{id} – one batch with the first page of its line items
export const GET = apiRoute(settlementOperations.retrieve, async ({ ctx, params, url }) => {
  const settlement = await getSettlement(ctx, params.id!);
  const lines = await listSettlementLines(ctx, settlement.id, { limit: 10 });
  return { ...toSettlementResource(settlement), lines: listResponse(new URL(`${url.pathname}/lines`, url), lines, toSettlementLineResource) };
});

// Other methods get the same 404 envelope as an unknown URL, not an empty 405.
export { notFoundRoute as POST, notFoundRoute as PUT, notFoundRoute as PATCH, notFoundRoute as DELETE, notFoundRoute as OPTIONS };
