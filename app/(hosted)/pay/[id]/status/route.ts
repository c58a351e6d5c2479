import { MAX_ATTEMPT_KEYS } from "@/server/domain/hosted";
import { loggingFaults } from "@/server/http/faults";
import { viewPaymentLinkPage } from "@/server/services/hosted/view-payment-link-page";
import { systemContext } from "@/server/system-context";
import { keepOwnAttemptKey, ownAttemptKeys } from "../../../own-attempts";
import { hostedStatus } from "../../../status-response";

// GET /pay/{id}/status?payment=pay_… – the link page's view, polled by its island
// GET /pay/{id}/status?attempt=…&attempt=… – the same, for the newest attempt this browser sent with one of these keys
export async function GET(request: Request, { params }: { params: Promise<{ id: string }> }): Promise<Response> {
  const { id } = await params;
  const query = new URL(request.url).searchParams;
  const attemptKeys = query.getAll("attempt").slice(0, MAX_ATTEMPT_KEYS);
  const view = await loggingFaults("payment link status could not be loaded", async () =>
    viewPaymentLinkPage(await systemContext(), { linkId: id, paymentId: query.get("payment") ?? undefined, attemptKeys, ownAttemptKeys: await ownAttemptKeys() }),
  );
  // A key of this browser's found its payment (the answer to its Pay was lost): the page follows
  // that payment by `?payment=` next, and shows this browser its outcome as its own.
  if (view.ok && view.value?.attempt_key) await keepOwnAttemptKey(id, view.value.attempt_key);
  return hostedStatus(view);
}
