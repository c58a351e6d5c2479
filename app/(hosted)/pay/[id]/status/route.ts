import { MAX_ATTEMPT_KEYS } from "@/server/domain/hosted";
import { viewPaymentLinkPage } from "@/server/services/hosted/view-payment-link-page";
import { systemContext } from "@/server/system-context";
import { hostedStatus } from "../../../status-response";

// GET /pay/{id}/status?payment=pay_… – the link page's view, polled by its island
// GET /pay/{id}/status?attempt=…&attempt=… – the same, for the newest attempt this browser sent with one of these keys
export async function GET(request: Request, { params }: { params: Promise<{ id: string }> }): Promise<Response> {
  const { id } = await params;
  const query = new URL(request.url).searchParams;
  const attemptKeys = query.getAll("attempt").slice(0, MAX_ATTEMPT_KEYS);
  return hostedStatus(await viewPaymentLinkPage(await systemContext(), { linkId: id, paymentId: query.get("payment") ?? undefined, attemptKeys }));
}
