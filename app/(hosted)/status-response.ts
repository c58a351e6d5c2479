import type { Loaded } from "@/server/http/faults";
import type { HostedPage } from "@/server/schemas/hosted";

/**
 * A hosted page's view for its island: never cached, 404 when the page does not exist, 500 with
 * the fault's reference when it could not be loaded (the island asks again at its next poll).
 */
export function hostedStatus(view: Loaded<HostedPage | null>): Response {
  const headers = { "Cache-Control": "no-store", "X-Robots-Tag": "noindex" };
  if (!view.ok) return Response.json({ error: "internal", reference: view.reference }, { status: 500, headers });
  return view.value ? Response.json(view.value, { headers }) : Response.json({ error: "not_found" }, { status: 404, headers });
}
