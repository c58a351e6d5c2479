import { apiRoute, notFoundRoute } from "@/server/http/api-route";
import { paymentOperations } from "@/server/schemas/payments";
import { previewPayment } from "@/server/services/payments/preview-payment";

// POST /v1/payments/preview – the fee and the amount the customer will be charged
export const POST = apiRoute(paymentOperations.preview, async ({ ctx, body }) => ({
  object: "payment_preview" as const,
  livemode: ctx.livemode,
  ...(await previewPayment(ctx, body)),
}));

// Other methods get the same 404 envelope as an unknown URL, not an empty 405.
export { notFoundRoute as GET, notFoundRoute as PUT, notFoundRoute as PATCH, notFoundRoute as DELETE, notFoundRoute as OPTIONS };
