import { viewCheckoutPage } from "@/server/services/hosted/view-checkout-page";
import { systemContext } from "@/server/system-context";
import { hostedStatus } from "../../../status-response";

// GET /checkout/{id}/status – the checkout page's view, polled by its island
export async function GET(_request: Request, { params }: { params: Promise<{ id: string }> }): Promise<Response> {
  const { id } = await params;
  return hostedStatus(await viewCheckoutPage(await systemContext(), id));
}
