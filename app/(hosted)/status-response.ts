import type { HostedPage } from "@/server/schemas/hosted";

/** A hosted page's view for its island: never cached, 404 when the page does not exist. */
export function hostedStatus(view: HostedPage | null): Response {
  const headers = { "Cache-Control": "no-store", "X-Robots-Tag": "noindex" };
  return view ? Response.json(view, { headers }) : Response.json({ error: "not_found" }, { status: 404, headers });
}
