import { fetchRequestHandler } from "@trpc/server/adapters/fetch";
import { createTrpcContext } from "@/server/trpc/context";
import { appRouter } from "@/server/trpc/routers/_app";

/**
 * Mutations carry the session cookie, so a page on another site must not be able to send them:
 * a POST is refused unless the browser says it comes from this origin.
 */
function crossSite(req: Request): boolean {
  if (req.method !== "POST") return false;
  const site = req.headers.get("sec-fetch-site");
  if (site) return site !== "same-origin";
  const origin = req.headers.get("origin");
  return origin !== null && origin !== new URL(req.url).origin;
}

// /api/trpc/* – the dashboard's procedures (session cookie; role and merchant checked per call)
const handler = (req: Request) =>
  crossSite(req)
    ? Response.json({ error: { message: "Cross-site requests are refused." } }, { status: 403 })
    : fetchRequestHandler({
        endpoint: "/api/trpc",
        req,
        router: appRouter,
        createContext: createTrpcContext,
        // A merchant's data, and once a generated password: never kept by a browser or a proxy.
        responseMeta: () => ({ headers: new Headers({ "Cache-Control": "no-store, private" }) }),
      });

export { handler as GET, handler as POST };
