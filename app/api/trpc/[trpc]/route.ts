import { fetchRequestHandler } from "@trpc/server/adapters/fetch";
import { sentFromAnotherSite } from "@/server/http/same-origin";
import { createTrpcContext } from "@/server/trpc/context";
import { appRouter } from "@/server/trpc/routers/_app";

// /api/trpc/* – the dashboard's procedures (session cookie; role and merchant checked per call).
// Mutations carry the session cookie, so a page on another site must not be able to send them.
const handler = (req: Request) =>
  sentFromAnotherSite(req.method, req.headers)
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
