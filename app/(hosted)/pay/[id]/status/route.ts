import { viewPaymentLinkPage } from "@/server/services/hosted/view-payment-link-page";
import { systemContext } from "@/server/system-context";
import { hostedStatus } from "../../../status-response";

// GET /pay/{id}/status?payment=pay_… – the link page's view, polled by its island
// GET /pay/{id}/status?attempt=… – the same, for an attempt whose answer the page never received
export async function GET(request: Request, { params }: { params: Promise<{ id: string }> }): Promise<Response> {
  const { id } = await params;
  const query = new URL(request.url).searchParams;
  const attemptKey = query.get("attempt") ?? undefined;
  return hostedStatus(await viewPaymentLinkPage(await systemContext(), { linkId: id, paymentId: query.get("payment") ?? undefined, attemptKey }));
}
