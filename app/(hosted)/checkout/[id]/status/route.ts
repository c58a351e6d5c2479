import { viewCheckoutPage } from "@/server/services/hosted/view-checkout-page";
import { systemContext } from "@/server/system-context";
import { hostedStatus } from "../../../status-response";

// GET /checkout/{id}/status – the checkout page's view, polled by its island
// GET /checkout/{id}/status?attempt=… – the same, with the attempt the page sent with that key
export async function GET(request: Request, { params }: { params: Promise<{ id: string }> }): Promise<Response> {
  const { id } = await params;
  const attemptKey = new URL(request.url).searchParams.get("attempt") ?? undefined;
  return hostedStatus(await viewCheckoutPage(await systemContext(), id, attemptKey));
}
