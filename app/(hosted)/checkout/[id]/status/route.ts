import { MAX_ATTEMPT_KEYS } from "@/server/domain/hosted";
import { loggingFaults } from "@/server/http/faults";
import { viewCheckoutPage } from "@/server/services/hosted/view-checkout-page";
import { systemContext } from "@/server/system-context";
import { hostedStatus } from "../../../status-response";

// GET /checkout/{id}/status – the checkout page's view, polled by its island
// GET /checkout/{id}/status?attempt=…&attempt=… – the same, with the newest attempt this browser sent with one of these keys
export async function GET(request: Request, { params }: { params: Promise<{ id: string }> }): Promise<Response> {
  const { id } = await params;
  const attemptKeys = new URL(request.url).searchParams.getAll("attempt").slice(0, MAX_ATTEMPT_KEYS);
  return hostedStatus(await loggingFaults("checkout status could not be loaded", async () => viewCheckoutPage(await systemContext(), id, attemptKeys)));
}
