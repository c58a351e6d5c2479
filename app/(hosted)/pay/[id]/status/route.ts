import { viewPaymentLinkPage } from "@/server/services/hosted/view-payment-link-page";
import { systemContext } from "@/server/system-context";
import { hostedStatus } from "../../../status-response";

// GET /pay/{id}/status?payment=pay_… – the link page's view, polled by its island
export async function GET(request: Request, { params }: { params: Promise<{ id: string }> }): Promise<Response> {
  const { id } = await params;
  const paymentId = new URL(request.url).searchParams.get("payment") ?? undefined;
  return hostedStatus(await viewPaymentLinkPage(await systemContext(), { linkId: id, paymentId }));
}
